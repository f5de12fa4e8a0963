import type { TopCommand } from "./command.js";

/** `arbor revert`: undo what the agent did to the workspace since an entry, and go back there in the session. */
export const revertCommand: TopCommand = {
  name: "revert",
  usage: "<session> [--to <entry>]",
  summary: "Put the workspace back as it was before an entry (default: the last user message) and move the session there.",
  details: [
    "Each step of a run records the files it changed (an arbor.patch entry; snapshots live in a private history under $ARBOR_HOME/snapshots, never in your own git repository). Revert restores every file the agent's steps changed after the entry, removes files they created, and moves the session's leaf to just before the entry; files ignored by .gitignore are left alone.",
    "Undo it with 'arbor unrevert <session>' before sending a new message. With --json: {sessionId, to, leaf, workspace, files}.",
  ],
  options: {
    to: { type: "string", valueName: "entry", description: "The entry to go back before (see 'arbor sessions tree')." },
  },
  run: async (io, values, operands) => (await import("./revert-run.js")).runRevertCommand(io, values, operands),
};

/** `arbor unrevert`: undo the last revert, files and leaf. */
export const unrevertCommand: TopCommand = {
  name: "unrevert",
  usage: "<session>",
  summary: "Undo the last 'arbor revert' of a session: its files and its place in the session come back.",
  details: [
    "Works while the revert is the session's last step (no message sent since). With --json: {sessionId, leaf, workspace, files}.",
  ],
  options: {},
  run: async (io, values, operands) => (await import("./revert-run.js")).runUnrevertCommand(io, values, operands),
};
