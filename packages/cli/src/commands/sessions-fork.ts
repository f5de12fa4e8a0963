import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsFork: Command = {
  name: "fork",
  operands: ["session", "entry"],
  requiredOperands: 1,
  summary: "Copy a session's branch (root → entry, default its leaf) into a new session of its own.",
  details: [
    "The new session holds the path and its labels; the original is unchanged. Continue it with 'arbor run --session <new id> \"…\"'.",
    "With --json: {sessionId, forkedFrom, entryId}.",
  ],
  validate: validateSessionIdOperand,
  options: {},
  run: async (ctx) => (await import("./sessions-fork-run.js")).runSessionsFork(ctx),
};
