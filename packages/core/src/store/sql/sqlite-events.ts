import type BetterSqlite3 from "better-sqlite3";
import { type CheckedEvent, numberEvents, type StoredEvent } from "../event-records.js";
import { INBOX_EVENT_TYPE, type InboxPage, inboxCursor, inboxMessages } from "../inbox.js";
import { INBOX_PAGE, typedPage } from "./event-log.js";
import { sessionNotFound } from "./rows.js";

/**
 * The SQLite event-log append on better-sqlite3 prepared statements, in one synchronous IMMEDIATE
 * transaction (the database write lock, as every SQLite write here). A run logs several events a
 * step; through Kysely each append compiled and awaited four statements and parsed the whole session
 * row only to learn that it exists. Same rows, same ids, same retention as `appendEventRows`.
 */
export class SqliteEventAppender {
  readonly append: (sessionId: string, checked: readonly CheckedEvent[], now: string, maxEvents: number) => StoredEvent[];

  constructor(handle: BetterSqlite3.Database) {
    const sessionExists = handle.prepare<[string], number>("select 1 from arbor_sessions where id = ?").pluck();
    const lastId = handle.prepare<[string], number | null>("select max(event_id) from arbor_events where session_id = ?").pluck();
    const insert = handle.prepare<[string, number, string, string, string]>(
      "insert into arbor_events (session_id, event_id, type, timestamp, data) values (?, ?, ?, ?, ?)",
    );
    const drop = handle.prepare<[string, number]>("delete from arbor_events where session_id = ? and event_id <= ?");
    const append = (sessionId: string, checked: readonly CheckedEvent[], now: string, maxEvents: number): StoredEvent[] => {
      if (sessionExists.get(sessionId) === undefined) throw sessionNotFound(sessionId);
      if (checked.length === 0) return [];
      const events = numberEvents(checked, Number(lastId.get(sessionId) ?? 0), now);
      // An index loop: `entries()` made an iterator result and a pair for every event (1.9 KB a step of the bench's tool loop).
      for (let i = 0; i < events.length; i++) {
        const e = events[i] as StoredEvent;
        insert.run(sessionId, e.id, e.type, e.timestamp, (checked[i] as CheckedEvent).dataJson);
      }
      const cutoff = (events[events.length - 1] as StoredEvent).id - maxEvents;
      if (cutoff > 0) drop.run(sessionId, cutoff);
      return events;
    };
    const transaction = handle.transaction(append);
    this.append = (...args) => transaction.immediate(...args);
  }
}

interface EventRow {
  event_id: number;
  type: string;
  timestamp: string;
  data: string;
}

/**
 * The inbox page a run reads before every step, on prepared statements: through Kysely each read
 * built and compiled its statements anew (a tenth of a SQLite run's time). The same page as
 * `inboxPageRows` (the inbox's records after the cursor, and a cursor past the log's newest record
 * when the page holds every match), found in two steps: whether the session exists and the log's
 * newest id first, and the inbox's records only when anything was logged after the cursor. A run is
 * steered rarely and logs in batches, so most reads end after the first, cheap, statement; the three
 * statements of before (the one that found the records an OR with a subquery) cost 2-3× as much on
 * every read.
 * `leased`: this store holds the session's lease, so the session exists (a session is deleted only
 * when no one drives it) and its row is not looked up.
 */
export class SqliteInboxReader {
  readonly page: (sessionId: string, after: string | undefined, leased: boolean) => InboxPage;

  constructor(handle: BetterSqlite3.Database) {
    // Whether the session exists and its log's newest id, in one statement: each statement outside a
    // transaction is a read transaction of its own, whose locks cost more than either lookup.
    const head = handle
      .prepare<[string, string], [number | null, number | null]>(
        "select (select 1 from arbor_sessions where id = ?), (select max(event_id) from arbor_events where session_id = ?)",
      )
      .raw();
    const lastId = handle.prepare<[string], number | null>("select max(event_id) from arbor_events where session_id = ?").pluck();
    const typed = handle.prepare<[string, number, string, number], EventRow>(
      "select event_id, type, timestamp, data from arbor_events where session_id = ? and event_id > ? and type = ? order by event_id limit ?",
    );
    this.page = (sessionId, after, leased) => {
      // A bad cursor is refused before the session is looked up, as `inboxPageRows` does.
      const from = after === undefined ? undefined : inboxCursor(after);
      let last: number | null;
      if (leased) last = lastId.get(sessionId) ?? null;
      else {
        const [exists, newestId] = head.get(sessionId, sessionId) as [number | null, number | null];
        if (exists === null) throw sessionNotFound(sessionId);
        last = newestId;
      }
      const newest = Number(last ?? 0);
      if (from === undefined) return { messages: [], cursor: String(newest) };
      if (newest <= from) return { messages: [], cursor: String(from) };
      const rows = typed.all(sessionId, from, INBOX_EVENT_TYPE, INBOX_PAGE);
      const { records, cursor } = typedPage(rows, INBOX_EVENT_TYPE, from);
      // A page short of the limit holds every match: the cursor moves past everything looked at. Its
      // rows may be newer than `newest` (another process logged between the two reads): past them too.
      return { messages: inboxMessages(records), cursor: String(rows.length < INBOX_PAGE ? Math.max(newest, cursor) : cursor) };
    };
  }
}
