import { ArborError } from "@arbor/core";
import { writeJson } from "../io.js";
import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsRm: Command = {
  name: "rm",
  operands: ["id"],
  summary: "Delete a session, its entries and its sub-sessions.",
  details: ['Only the given store is touched. With --json: {"deleted": "<id>"}.'],
  validate: validateSessionIdOperand,
  options: {},
  async run(ctx) {
    const id = ctx.operands[0] as string;
    // Checked first so that a mistyped id is an error rather than a silent no-op.
    if ((await ctx.store.getSession(id)) === undefined) {
      throw new ArborError("session_not_found", `Session ${id} does not exist.`);
    }
    await ctx.store.deleteSession(id);
    if (ctx.json) writeJson(ctx.io.stdout, { deleted: id });
    else ctx.io.stdout.write(`Deleted session ${id}.\n`);
  },
};
