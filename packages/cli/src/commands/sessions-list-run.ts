import { resolve } from "node:path";
import type { SessionMeta, Store } from "@arbor/core";
import { intOption, stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { renderSessionList } from "../render/list.js";
import type { CommandContext } from "./command.js";

export async function runSessionsList(ctx: CommandContext): Promise<void> {
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
}

/** The sub-traces of each listed session, and theirs, by parent id (a few levels deep at most). */
async function subTraceTree(store: Store, roots: readonly SessionMeta[]): Promise<Map<string, SessionMeta[]>> {
  const out = new Map<string, SessionMeta[]>();
  if (roots.length === 0) return out;
  // Trace queries load only when there are sessions to look under.
  const { listSubTraces } = await import("@arbor/core/trace");
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
