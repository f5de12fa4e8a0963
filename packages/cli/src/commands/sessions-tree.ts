import { resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { pickStyle } from "../render/style.js";
import { renderTree } from "../render/tree.js";
import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsTree: Command = {
  name: "tree",
  operands: ["id"],
  summary: "Draw the whole entry tree of a session, every branch, with the active path marked.",
  details: [
    "One line per entry: short id, role or entry type, a one-line preview, [label]. '*' (bold on a terminal) marks the active path and '← leaf' the leaf.",
    "An entry with one child continues in the same column; the children of a branch point are drawn one level deeper with ├─ and └─.",
    "With --json: {activePath, childrenByParentId, labelsByEntryId}.",
  ],
  validate: validateSessionIdOperand,
  options: {},
  async run(ctx) {
    const id = await resolveSessionId(ctx.store, ctx.operands[0] as string);
    const snapshot = await ctx.store.getSnapshot(id);
    if (ctx.json) {
      const { activePath, childrenByParentId, labelsByEntryId } = snapshot;
      writeJson(ctx.io.stdout, { activePath, childrenByParentId, labelsByEntryId });
      return;
    }
    const out = ctx.io.stdout;
    const width = out.isTTY && out.columns !== undefined && out.columns > 0 ? out.columns : undefined;
    const lines = renderTree(snapshot, { style: pickStyle(out.isTTY, ctx.io.env), ...(width !== undefined ? { width } : {}) });
    writeLines(out, lines);
  },
};
