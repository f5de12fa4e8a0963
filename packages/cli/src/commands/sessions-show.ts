import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsShow: Command = {
  name: "show",
  operands: ["id"],
  summary: "Show a session, its plan and sub-traces, and its active path (root → leaf).",
  details: [
    "After the session's fields: for a sub-trace, the parent and the parent's goal that started it; the plan (the goal",
    "tree at the leaf) with each agent_call goal's sub-traces; the sub-traces with their status, agent and goal;",
    "the todo list as the last todowrite on the path left it.",
    "Then one line per entry on the active path: short id, role or entry type, the first line of what it says, its label.",
    "With --json: the session snapshot exactly as the store returns it (session, entries, activePath, childrenByParentId, labelsByEntryId, runtimeContext).",
  ],
  validate: validateSessionIdOperand,
  options: {},
  run: async (ctx) => (await import("./sessions-show-run.js")).runSessionsShow(ctx),
};
