import { resolve } from "node:path";
import type { SessionMeta, Store } from "@arbor/core";
import { listSubTraces } from "@arbor/core/trace";
import { intOption, stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { renderSessionList } from "../render/list.js";
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
  async run(ctx) {
    const limit = intOption(ctx.values, "limit", 1, 1000);
    const cursor = stringOption(ctx.values, "cursor");
    const flat = ctx.values.flat === true;
    const here = ctx.values.here === true ? resolve(ctx.io.cwd ?? process.cwd()) : undefined;
    const page = await ctx.store.listSessions({
      ...(limit !== undefined ? { limit } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
      ...(flat ? {} : { parentSessionId: null }),
      ...(here !== undefined ? { cwd: here } : {}),
    });
    const children = flat ? undefined : await subTraceTree(ctx.store, page.sessions);
    if (ctx.json) {
      const subTraces = children && children.size > 0 ? Object.fromEntries(children) : undefined;
      writeJson(ctx.io.stdout, {
        sessions: page.sessions,
        nextCursor: page.nextCursor ?? null,
        ...(subTraces ? { subTraces } : {}),
      });
      return;
    }
    // The next-page hint repeats --limit; --store is left out because a URL may hold a password.
    const command = `arbor sessions list${limit !== undefined ? ` --limit ${limit}` : ""}${flat ? " --flat" : ""}${here ? " --here" : ""}`;
    writeLines(ctx.io.stdout, renderSessionList(page, { command, ...(children ? { children } : {}) }));
  },
};

/** The sub-traces of each listed session, and theirs, by parent id (a few levels deep at most). */
async function subTraceTree(store: Store, roots: readonly SessionMeta[]): Promise<Map<string, SessionMeta[]>> {
  const out = new Map<string, SessionMeta[]>();
  let level = [...roots];
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: SessionMeta[] = [];
    for (const meta of level) {
      const subs = await listSubTraces(store, meta.id);
      if (subs.length === 0) continue;
      out.set(meta.id, subs);
      next.push(...subs);
    }
    level = next;
  }
  return out;
}
