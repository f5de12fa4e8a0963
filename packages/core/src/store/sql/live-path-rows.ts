import { type Kysely, sql } from "kysely";
import type { Entry } from "../../model/entry.js";
import { carriedIdsOf, joinLivePath, type LivePath, livePathOf } from "../live-path.js";
import { activePathRows, chunks, sessionEntryRows } from "./queries.js";
import { parseEntryRow } from "./rows.js";
import type { ArborDatabase } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/** Deeper than any real conversation; reached only by a parent cycle in a hand-edited table. */
export const MAX_PATH_DEPTH = 1_000_000;

/**
 * From `startId` back along parent links, oldest first, stopping at (and including) the first
 * compaction, or at `stopId`. Every lookup, the final read of `data` included, is a subquery on the
 * primary key, one probe per step on every dialect: a join lets SQLite scan the session's entries
 * against the path (measured 260 ms for a 1,000-entry tail of 100,000) and PostgreSQL plan a hash.
 */
async function walkBack(db: Db, sessionId: string, startId: string, stopId: string | null): Promise<Entry[]> {
  const stop =
    stopId === null
      ? sql`(select e.type from arbor_entries e where e.session_id = ${sessionId} and e.id = p.id) <> 'compaction'`
      : sql`p.id <> ${stopId}`;
  const { rows } = await sql<{ data: string | null }>`
    with recursive path (id, depth) as (
      select e.id, 0 from arbor_entries e where e.session_id = ${sessionId} and e.id = ${startId}
      union all
      select (select e.parent_id from arbor_entries e where e.session_id = ${sessionId} and e.id = p.id), p.depth + 1
        from path p
        where p.id is not null and p.depth < ${MAX_PATH_DEPTH} and ${stop}
    )
    select (select e.data from arbor_entries e where e.session_id = ${sessionId} and e.id = p.id) as data
      from path p where p.id is not null
    order by p.depth desc`.execute(db);
  // A row whose entry is missing (a broken parent link) has no data; the full read reports it.
  return rows.flatMap((r) => (r.data === null ? [] : [parseEntryRow(r.data, sessionId)]));
}

async function entriesById(db: Db, sessionId: string, ids: readonly string[]): Promise<Entry[]> {
  const byId = new Map<string, Entry>();
  for (const part of chunks(ids)) {
    const rows = await sessionEntryRows(db, sessionId).select("data").where("id", "in", part).execute();
    for (const r of rows) {
      const e = parseEntryRow(r.data, sessionId);
      byId.set(e.id, e);
    }
  }
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The live path read with targeted queries: the tail back to the latest compaction, what it keeps,
 * and its carried entries by id. A path without a compaction that carries its list is read whole.
 */
export async function livePathRows(db: Db, sessionId: string, leafId: string): Promise<LivePath> {
  const tail = await walkBack(db, sessionId, leafId, null);
  const head = tail[0];
  const carried = head?.type === "compaction" ? carriedIdsOf(head) : undefined;
  // Back at the root: the tail is the whole path (a broken link is reported by the full read).
  if (head && head.type !== "compaction" && head.parentId === null) return { entries: tail, complete: true };
  if (head?.type !== "compaction" || carried === undefined) return livePathOf(await activePathRows(db, sessionId, leafId));
  let kept: Entry[] = [];
  if (head.firstKeptEntryId !== null && head.parentId !== null) {
    kept = await walkBack(db, sessionId, head.parentId, head.firstKeptEntryId);
    // A first kept entry that is not on the path keeps nothing more, as the context fold reads it.
    if (kept[0]?.id !== head.firstKeptEntryId) kept = [];
  }
  return joinLivePath(await entriesById(db, sessionId, carried), [...kept, ...tail]);
}
