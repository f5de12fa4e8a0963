import type BetterSqlite3 from "better-sqlite3";
import type { Entry } from "../../model/entry.js";
import { carriedIdsOf, joinLivePath, type LivePath } from "../live-path.js";
import { MAX_PATH_DEPTH } from "./live-path-rows.js";
import { parseEntryRow, sessionNotFound } from "./rows.js";

/** The walk of `walkBack` (live-path-rows.ts), the same statement on named parameters. */
function walkSql(stop: string): string {
  return `with recursive path (id, depth) as (
      select e.id, 0 from arbor_entries e where e.session_id = @sid and e.id = @start
      union all
      select (select e.parent_id from arbor_entries e where e.session_id = @sid and e.id = p.id), p.depth + 1
        from path p
        where p.id is not null and p.depth < @depth and ${stop}
    )
    select (select e.data from arbor_entries e where e.session_id = @sid and e.id = p.id) as data
      from path p where p.id is not null
    order by p.depth desc`;
}

/**
 * `getLivePath` on SQLite, on prepared statements: a continued run reads its session's live path
 * first, and through Kysely the leaf lookup and the walk were built, compiled and awaited each time.
 * The same reads as `leafEntryIdOf` and `livePathRows`, run one after the other without a turn
 * between them. A path that needs the whole active path (a compaction without its carried list) is
 * left to `livePathRows`: `read` answers undefined. The caller holds the SQLite gate, or nothing does.
 */
export class SqliteLivePathReader {
  readonly read: (sessionId: string) => LivePath | undefined;

  constructor(
    handle: BetterSqlite3.Database,
    /** The session's leaf as readers see it (see SqliteAppender.leafOf); undefined: no such session. */
    leafOf: (sessionId: string) => string | null | undefined,
  ) {
    const toCompaction = handle.prepare<[{ sid: string; start: string; depth: number }], { data: string | null }>(
      walkSql("(select e.type from arbor_entries e where e.session_id = @sid and e.id = p.id) <> 'compaction'"),
    );
    const toEntry = handle.prepare<[{ sid: string; start: string; depth: number; stop: string }], { data: string | null }>(
      walkSql("p.id <> @stop"),
    );
    const entryData = handle
      .prepare<[string, string], string>("select data from arbor_entries where session_id = ? and id = ?")
      .pluck();
    // A row whose entry is missing (a broken parent link) has no data; the full read reports it.
    const entries = (sessionId: string, rows: { data: string | null }[]): Entry[] =>
      rows.flatMap((r) => (r.data === null ? [] : [parseEntryRow(r.data, sessionId)]));

    this.read = (sessionId) => {
      const leaf = leafOf(sessionId);
      if (leaf === undefined) throw sessionNotFound(sessionId);
      if (leaf === null) return { entries: [], complete: true };
      const sid = sessionId;
      const tail = entries(sid, toCompaction.all({ sid, start: leaf, depth: MAX_PATH_DEPTH }));
      const head = tail[0];
      const carried = head?.type === "compaction" ? carriedIdsOf(head) : undefined;
      if (head && head.type !== "compaction" && head.parentId === null) return { entries: tail, complete: true };
      if (head?.type !== "compaction" || carried === undefined) return undefined;
      let kept: Entry[] = [];
      if (head.firstKeptEntryId !== null && head.parentId !== null) {
        kept = entries(sid, toEntry.all({ sid, start: head.parentId, depth: MAX_PATH_DEPTH, stop: head.firstKeptEntryId }));
        // A first kept entry that is not on the path keeps nothing more, as the context fold reads it.
        if (kept[0]?.id !== head.firstKeptEntryId) kept = [];
      }
      const carriedEntries = carried.flatMap((id) => {
        const data = entryData.get(sid, id);
        return data === undefined ? [] : [parseEntryRow(data, sid)];
      });
      return joinLivePath(carriedEntries, [...kept, ...tail]);
    };
  }
}
