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
  run: async (ctx) => (await import("./sessions-tree-run.js")).runSessionsTree(ctx),
};
