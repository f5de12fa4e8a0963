import type BetterSqlite3 from "better-sqlite3";
import type { Entry } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { metaAfterBatch } from "../append-plan.js";
import { parseEntryRow, parseSessionRow } from "./rows.js";

/**
 * A SQLite session row that its lease holder does not rewrite on every append.
 *
 * Why: on SQLite a commit costs what it writes to the WAL, a page per b-tree it touches. An append
 * that also rewrites the session row writes one page more than the entry's insert: better-sqlite3
 * alone, on a 20k-entry session, 22 µs p50 a commit with the row's update, 16.6 µs without. The row
 * only repeats what the entries say (leaf, root, totals, title, `updatedAt` follow from the entries
 * appended, see `metaAfterAppend`), so the holder of the session's lease lets it lag, and says so:
 *
 * 1. An append that rewrites the row while its store holds the lease sets `tail_seq` to the `seq` of
 *    the last entry it wrote, in the same transaction: the row is exact up to that entry.
 * 2. The holder's later appends only insert their entries, while their `seq` stays within
 *    `TAIL_SPAN` of `tail_seq`; the first one past it rewrites the row (and moves `tail_seq`).
 * 3. The holder writes the exact row with `tail_seq` null when it gives the lease back, and before
 *    any other write of the session in its process (`SqliteAppender.settle`).
 *
 * A reader folds the session's entries with `seq` in (tail_seq, tail_seq + TAIL_SPAN] into the row,
 * in order, as the appends would have: any process, during the run or after a crash that left the
 * row lagging, reads what an update on every append would have written. `seq` is SQLite's rowid,
 * rising across all sessions, so the span bounds what a reader scans (other sessions' rows
 * included), not only this session's entries. Only a write that passed the lease fence, or found
 * no other live holder, makes the row exact again.
 */
export const TAIL_SPAN = 256;

/** A session row as its reader must see it: the meta with the tail folded in. */
export interface SessionRowState {
  meta: SessionMeta;
  /** The row's `next_seq` plus the entries folded in. */
  nextSeq: number;
  /** The row's `tail_seq` as stored (null: the row was exact). */
  tail: number | null;
}

/** The reads of a session row that fold its tail; prepared statements on SQLite's one connection. */
export class SqliteSessionTail {
  /** The session's row with its tail folded in; undefined when there is no such session. */
  readonly read: (sessionId: string) => SessionRowState | undefined;
  /** The session's leaf as the folded row has it; undefined when there is no such session. */
  readonly leaf: (sessionId: string) => string | null | undefined;
  /** The stored `tail_seq` (null: exact), undefined when there is no such session. */
  readonly tailOf: (sessionId: string) => number | null | undefined;

  constructor(handle: BetterSqlite3.Database) {
    const selectRow = handle.prepare<[string], { data: string; next_seq: number; tail_seq: number | null }>(
      "select data, next_seq, tail_seq from arbor_sessions where id = ?",
    );
    const selectLeaf = handle.prepare<[string], { leaf_entry_id: string | null; tail_seq: number | null }>(
      "select leaf_entry_id, tail_seq from arbor_sessions where id = ?",
    );
    // `+session_id` keeps the planner off the (session, id) index, which would walk the whole
    // session: the rowid range is the short scan.
    const tailEntries = handle
      .prepare<[number, number, string], string>(
        "select data from arbor_entries where seq > ? and seq <= ? and +session_id = ? order by seq",
      )
      .pluck();
    const lastTailEntry = handle
      .prepare<[number, number, string], string>(
        "select id from arbor_entries where seq > ? and seq <= ? and +session_id = ? order by seq desc limit 1",
      )
      .pluck();
    const tailOf = handle.prepare<[string], number | null>("select tail_seq from arbor_sessions where id = ?").pluck();

    // The row and its tail read in one transaction, so both are of one moment (a savepoint inside a write).
    this.read = handle.transaction((sessionId: string): SessionRowState | undefined => {
      const row = selectRow.get(sessionId);
      if (!row) return undefined;
      const meta = parseSessionRow(row.data, sessionId);
      if (row.tail_seq === null) return { meta, nextSeq: row.next_seq, tail: null };
      const folded: Entry[] = tailEntries
        .all(row.tail_seq, row.tail_seq + TAIL_SPAN, sessionId)
        .map((data) => parseEntryRow(data, sessionId));
      return { meta: metaAfterBatch(meta, folded), nextSeq: row.next_seq + folded.length, tail: row.tail_seq };
    });
    this.leaf = handle.transaction((sessionId: string): string | null | undefined => {
      const row = selectLeaf.get(sessionId);
      if (!row) return undefined;
      if (row.tail_seq === null) return row.leaf_entry_id;
      // Every append moves the leaf to its last entry: the tail's last entry is the leaf, if any.
      return lastTailEntry.get(row.tail_seq, row.tail_seq + TAIL_SPAN, sessionId) ?? row.leaf_entry_id;
    });
    this.tailOf = (sessionId) => tailOf.get(sessionId);
  }
}
