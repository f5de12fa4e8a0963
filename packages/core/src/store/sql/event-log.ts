import { type Kysely, sql } from "kysely";
import { type CheckedEvent, numberEvents, type StoredEvent } from "../event-records.js";
import { INBOX_EVENT_TYPE, type InboxPage, inboxCursor, inboxMessages } from "../inbox.js";
import { assertSessionRow } from "./entry-reads.js";
import type { ArborDatabase } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/**
 * Appends to a session's event log inside the caller's transaction, which holds the session's row
 * lock: ids continue from the highest kept (retention keeps the newest, so an id is never reused),
 * and records past `maxEvents` are dropped oldest first.
 */
export async function appendEventRows(
  trx: Db,
  sessionId: string,
  inputs: readonly CheckedEvent[],
  now: string,
  maxEvents: number,
): Promise<StoredEvent[]> {
  const events = numberEvents(inputs, await lastEventRowId(trx, sessionId), now);
  for (let i = 0; i < events.length; i += 200) {
    await trx
      .insertInto("arbor_events")
      .values(
        events.slice(i, i + 200).map((e, j) => ({
          session_id: sessionId,
          event_id: e.id,
          type: e.type,
          timestamp: e.timestamp,
          data: (inputs[i + j] as CheckedEvent).dataJson,
        })),
      )
      .execute();
  }
  const cutoff = (events[events.length - 1] as StoredEvent).id - maxEvents;
  if (cutoff > 0) {
    await trx.deleteFrom("arbor_events").where("session_id", "=", sessionId).where("event_id", "<=", cutoff).execute();
  }
  return events;
}

/** The records after `after`, oldest first; with `type`, only those of that type (the inbox reads only its own). */
export async function listEventRows(
  db: Db,
  sessionId: string,
  after: number,
  limit: number,
  type?: string,
): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom("arbor_events")
    .select(["event_id", "type", "timestamp", "data"])
    .where("session_id", "=", sessionId)
    .where("event_id", ">", after)
    .$if(type !== undefined, (q) => q.where("type", "=", type as string))
    .orderBy("event_id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.event_id),
    type: r.type,
    timestamp: r.timestamp,
    data: JSON.parse(r.data) as Record<string, unknown>,
  }));
}

/**
 * The records of `type` after `after`, oldest first, and the cursor to read on from: the session's
 * newest record when the page holds every match. Read in one statement, so the newest id and the
 * matches come from one snapshot (ids are given out under the session's lock, so no lower id commits
 * later); a reader that finds nothing new starts its next read after everything it has looked at,
 * instead of scanning the whole log since its first cursor again.
 */
export async function listTypedEventRows(
  db: Db,
  sessionId: string,
  after: number,
  limit: number,
  type: string,
): Promise<{ records: StoredEvent[]; cursor: number }> {
  const rows = await db
    .selectFrom("arbor_events")
    .select(["event_id", "type", "timestamp", "data"])
    .where("session_id", "=", sessionId)
    .where("event_id", ">", after)
    .where((eb) =>
      eb.or([
        eb("type", "=", type),
        eb(
          "event_id",
          "=",
          eb
            .selectFrom("arbor_events as newest")
            .select(sql<number>`max(newest.event_id)`.as("last"))
            .where("newest.session_id", "=", sessionId),
        ),
      ]),
    )
    .orderBy("event_id")
    .limit(limit)
    .execute();
  return typedPage(rows, type, after);
}

/**
 * The records of `type` among a page of event rows (the page may end with the session's newest
 * event of another type), and the cursor past the page: its last row, or `after` when it is empty.
 */
export function typedPage(
  rows: ReadonlyArray<{ event_id: number | string; type: string; timestamp: string; data: string }>,
  type: string,
  after: number,
): { records: StoredEvent[]; cursor: number } {
  const records = rows
    .filter((r) => r.type === type)
    .map((r) => ({
      id: Number(r.event_id),
      type: r.type,
      timestamp: r.timestamp,
      data: JSON.parse(r.data) as Record<string, unknown>,
    }));
  const last = rows.at(-1);
  return { records, cursor: last === undefined ? after : Number(last.event_id) };
}

/** The highest event id kept for the session, 0 when its log is empty. */
export async function lastEventRowId(db: Db, sessionId: string): Promise<number> {
  const row = await db
    .selectFrom("arbor_events")
    .select(sql<number | string | null>`max(event_id)`.as("last"))
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** Inbox records read in one page at most (SQLite's prepared read uses the same page). */
export const INBOX_PAGE = 10_000;

/**
 * One page of a session's inbox in one query: only the inbox's records, however many others a run
 * logged since; a bad cursor is refused before the session is looked up. Without a cursor the page is empty and the cursor is the log's end (messages from now on).
 */
export async function inboxPageRows(db: Db, sessionId: string, after?: string): Promise<InboxPage> {
  const from = after === undefined ? undefined : inboxCursor(after);
  await assertSessionRow(db, sessionId);
  if (from === undefined) return { messages: [], cursor: String(await lastEventRowId(db, sessionId)) };
  const { records, cursor } = await listTypedEventRows(db, sessionId, from, INBOX_PAGE, INBOX_EVENT_TYPE);
  return { messages: inboxMessages(records), cursor: String(cursor) };
}
