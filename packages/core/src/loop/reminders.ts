/**
 * Synthetic text the loop adds to the conversation. The tag marks it as
 * coming from the runtime rather than the user, so the model neither quotes it back nor mistakes it
 * for a new request.
 */

function systemReminder(lines: readonly string[]): string {
  return ["<system-reminder>", ...lines, "</system-reminder>"].join("\n");
}

/**
 * Wraps a user message that arrived while the run was working, so the model reads it as an aside to
 * fold into the task in hand rather than a fresh conversation that replaces it.
 */
export function queuedUserReminder(text: string): string {
  return systemReminder([
    "While you were working, the user sent the following message:",
    text,
    "",
    "Please address this message and continue with your tasks (change course if it asks you to, then carry on).",
  ]);
}

/** Added to the user's message while the `plan` agent runs: its tools are read-only, and this says why. */
export function planModeReminder(): string {
  return systemReminder([
    "You are in plan mode. Study the task and the workspace, then write a plan: the steps, the files each one",
    "touches, and how to check the result. Do not change anything yet: no edits, no new files, no commands with",
    "side effects. Read, search and ask questions instead. The user will switch to the build agent to carry it out.",
  ]);
}

/** Added once when a session that was planning continues with the `build` agent. */
export function buildSwitchReminder(): string {
  return systemReminder([
    "Plan mode is over: you are now the build agent and may edit files and run commands.",
    "Carry out the plan made earlier in this conversation, step by step, and check each step as you go.",
  ]);
}

/** Sent with the last step `maxTurns` allows: the model gets no tools, so it must hand over in words. */
export function maxTurnsReminder(): string {
  return systemReminder([
    "This is the last step this run allows: no more tool calls can be made.",
    "Reply in text only: summarize what you did, what you found, and what is still left to do, so the user can pick up from here.",
  ]);
}
