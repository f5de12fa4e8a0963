import type { Snapshot } from "@arbor/core";

/**
 * A message the user sent while a run worked (steering) is stored as a user message wrapped for the
 * model: `queuedUserReminder` in packages/core/src/loop/reminders.ts writes it. The page shows what the
 * user typed, marked as steering, and never the wrapper; the steering browser test runs a real steer
 * through the runtime, so a change of the wrapper's words fails there.
 */
const WRAPPED =
  /^<system-reminder>\nWhile you were working, the user sent the following message:\n([\s\S]*)\n\nPlease address this message and continue with your tasks[^\n]*\n<\/system-reminder>$/;

/** What the user typed, when `text` is a steering message as stored; undefined for any other text. */
export function steeringText(text: string): string | undefined {
  return WRAPPED.exec(text)?.[1];
}

/** The mark beside a steering message: sent and waiting for the run's next step, or taken in by it. */
export function steeringMark(status: "sending" | "waiting" | "read" | "failed"): string {
  switch (status) {
    case "sending":
    case "waiting":
      return "steering … the agent reads it at its next step";
    case "read":
      return "steering · read by the agent";
    case "failed":
      return "steering · not delivered";
  }
}

/**
 * How many steering messages the latest run has taken in, as the session shows them: those on the
 * active path after the last message the user sent that was not steering (the run's prompt).
 */
export function steersReadByLatestRun(snapshot: Snapshot): number {
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
  let read = 0;
  for (let i = snapshot.activePath.length - 1; i >= 0; i--) {
    const entry = byId.get(snapshot.activePath[i] as string);
    if (entry?.type !== "message" || entry.message.role !== "user" || entry.message.synthetic) continue;
    const text = entry.message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
    if (steeringText(text) === undefined) break;
    read++;
  }
  return read;
}
