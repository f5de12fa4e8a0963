import { intOption, stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { renderSessionList } from "../render/list.js";
import type { Command } from "./command.js";

export const sessionsList: Command = {
  name: "list",
  operands: [],
  summary: "List sessions, newest first, one page at a time.",
  details: [
    "Columns: id, created and updated time (UTC), number of messages, title.",
    "When more sessions follow, the last line gives the --cursor for the next page. With --json: {sessions, nextCursor} (nextCursor is null on the last page).",
  ],
  options: {
    limit: { type: "string", valueName: "n", description: "Sessions per page, 1-1000 (default 50)." },
    cursor: { type: "string", valueName: "cursor", description: "Continue after the page that printed this cursor." },
  },
  validate(values) {
    intOption(values, "limit", 1, 1000);
  },
  async run(ctx) {
    const limit = intOption(ctx.values, "limit", 1, 1000);
    const cursor = stringOption(ctx.values, "cursor");
    const page = await ctx.store.listSessions({
      ...(limit !== undefined ? { limit } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
    });
    if (ctx.json) {
      writeJson(ctx.io.stdout, { sessions: page.sessions, nextCursor: page.nextCursor ?? null });
      return;
    }
    // The next-page hint repeats --limit; --store is left out because a URL may hold a password.
    const command = limit !== undefined ? `arbor sessions list --limit ${limit}` : "arbor sessions list";
    writeLines(ctx.io.stdout, renderSessionList(page, { command }));
  },
};
