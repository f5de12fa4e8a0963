import { writeJson, writeLines } from "../io.js";
import { renderShow } from "../render/show.js";
import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsShow: Command = {
  name: "show",
  operands: ["id"],
  summary: "Show a session and its active path (root → leaf).",
  details: [
    "One line per entry on the active path: short id, role or entry type, the first line of what it says, its label.",
    "With --json: the session snapshot exactly as the store returns it (session, entries, activePath, childrenByParentId, labelsByEntryId, runtimeContext).",
  ],
  validate: validateSessionIdOperand,
  options: {},
  async run(ctx) {
    const id = ctx.operands[0] as string;
    const snapshot = await ctx.store.getSnapshot(id);
    if (ctx.json) writeJson(ctx.io.stdout, snapshot);
    else writeLines(ctx.io.stdout, renderShow(snapshot));
  },
};
