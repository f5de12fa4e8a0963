import type { TopCommand } from "./command.js";

/** `arbor revert`: undo what the agent did to the workspace since an entry, and go back there in the session. */
export const revertCommand: TopCommand = {
  name: "revert",
  usage: "<session> [--to <entry>] [--file <path>] [--step <entry>]",
  summary: "Put the workspace back as it was before an entry (default: the last user message) and move the session there.",
  details: [
    "Each step of a run records the files it changed (an arbor.patch entry; snapshots live in a private history under $ARBOR_HOME/snapshots, never in your own git repository). Revert restores every file the agent's steps changed after the entry, removes files they created, and moves the session's leaf to just before the entry; files ignored by .gitignore are left alone.",
    "--file <path> puts back only that file (relative to the workspace) as it was before --to, or before --step; --step <entry> takes back only what that step changed (its arbor.patch entry or its assistant message), hunk by hunk, keeping later changes. Both leave the conversation where it is.",
    "Undo it with 'arbor unrevert <session>', also after new messages. With --json: {sessionId, to, leaf, workspace, files, scope}.",
  ],
  options: {
    to: { type: "string", valueName: "entry", description: "The entry to go back before (see 'arbor sessions tree')." },
    file: { type: "string", valueName: "path", description: "Only this file, relative to the session's workspace." },
    step: { type: "string", valueName: "entry", description: "Only what this step changed (see 'arbor sessions tree')." },
  },
  run: async (io, values, operands) => (await import("./revert-run.js")).runRevertCommand(io, values, operands),
};

/** `arbor unrevert`: undo the last revert, files and leaf. */
export const unrevertCommand: TopCommand = {
  name: "unrevert",
  usage: "<session>",
  summary:
    "Undo the latest 'arbor revert' of a session: its files (and, while it is the last step, its place in the session) come back.",
  details: [
    "Also after new messages: then only the revert's own change is taken back, keeping what was done since, and the conversation stays where it is; a change that no longer fits is refused (revert_conflict) and nothing changes. With --json: {sessionId, leaf, workspace, files}.",
  ],
  options: {},
  run: async (io, values, operands) => (await import("./revert-run.js")).runUnrevertCommand(io, values, operands),
};
