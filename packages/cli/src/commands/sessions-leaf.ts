import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsLeaf: Command = {
  name: "leaf",
  operands: ["session", "entry"],
  summary: "Switch a session to another branch: its leaf moves to the entry, and the next prompt continues from there.",
  details: [
    "Ids may be shortened to any prefix only one session (or entry of the session) starts with, as 'arbor sessions tree' prints them.",
    "Nothing is deleted: the branch left stays in the tree. A session another process is running is not moved (session_busy).",
    "With --json: {sessionId, leafId}.",
  ],
  validate: validateSessionIdOperand,
  options: {},
  run: async (ctx) => (await import("./sessions-leaf-run.js")).runSessionsLeaf(ctx),
};
