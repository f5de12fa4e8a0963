import { intOption } from "../args.js";
import type { Command } from "./command.js";

export const sessionsList: Command = {
  name: "list",
  operands: [],
  summary: "List sessions, newest first, one page at a time, each with its sub-traces under it.",
  details: [
    "Columns: id, created and updated time (UTC), number of messages, title; a sub-trace (explore, delegate) is listed",
    "indented under the session that started it, titled [agent, status] task. --flat lists every session on its own.",
    "--here lists only the sessions whose workspace is the current directory (as `arbor run` records it from --cwd).",
    "When more sessions follow, the last line gives the --cursor for the next page. With --json: {sessions, nextCursor} (nextCursor is null on the last page).",
  ],
  options: {
    limit: { type: "string", valueName: "n", description: "Sessions per page, 1-1000 (default 50)." },
    cursor: { type: "string", valueName: "cursor", description: "Continue after the page that printed this cursor." },
    flat: { type: "boolean", description: "List sub-traces as sessions of their own instead of under their parent." },
    here: { type: "boolean", description: "Only sessions whose workspace is the current directory." },
  },
  validate(values) {
    intOption(values, "limit", 1, 1000);
  },
  run: async (ctx) => (await import("./sessions-list-run.js")).runSessionsList(ctx),
};
