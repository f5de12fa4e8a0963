import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsRm: Command = {
  name: "rm",
  operands: ["id"],
  summary: "Delete a session, its entries and its sub-sessions.",
  details: ['Only the given store is touched. With --json: {"deleted": "<id>"}.'],
  validate: validateSessionIdOperand,
  options: {},
  run: async (ctx) => (await import("./sessions-rm-run.js")).runSessionsRm(ctx),
};
