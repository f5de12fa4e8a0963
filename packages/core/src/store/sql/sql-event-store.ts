import type { Kysely } from "kysely";
import { assertSessionId } from "../../model/ids.js";
import type { SessionMeta } from "../../model/session.js";
import {
  checkEventInputs,
  checkListEventsOptions,
  type EventInput,
  type EventWindow,
  type ListEventsOptions,
  type StoredEvent,
} from "../event-records.js";
import type { SqlExecutor } from "../store.js";
import type { SqlConnection } from "./connect.js";
import { assertSessionRow } from "./entry-reads.js";
import { appendEventRows, lastEventRowId, listEventRows } from "./event-log.js";
import { lockSession, type SqlWriter } from "./sql-entry-writes.js";
import { appendEventsWithinTrx } from "./sql-events-within.js";
import { purgeEventRows } from "./sql-purge.js";
import { SqliteEventAppender } from "./sqlite-events.js";
import type { ArborDatabase } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/** The store's write to one session: one at a time in this process, one transaction in the database. */
export type SessionWrite = <T>(sessionId: string, work: (trx: Db) => Promise<T>) => Promise<T>;

/** SQLite: the WAL still holds the pages as they were before an erasure until a checkpoint copies the new ones over them. */
export async function checkpoint(conn: SqlConnection): Promise<void> {
  const sqlite = conn.sqlite;
  if (sqlite) await conn.sqliteGate.run("sqlite", async () => sqlite.pragma("wal_checkpoint(TRUNCATE)"));
}

/**
 * Each session's event log in SQL: the store's event operations, apart from its entries. The store
 * wraps every call in its guard (closed store, driver errors); this holds what happens inside.
 */
export class SqlEventLog {
  /** SQLite's event-log appends on prepared statements (see SqliteEventAppender). */
  private readonly sqlite: SqliteEventAppender | undefined;

  constructor(
    private readonly conn: SqlConnection,
    private readonly w: SqlWriter,
    private readonly write: SessionWrite,
    private readonly limits: { maxEntryBytes: number; maxEvents: number },
  ) {
    this.sqlite = conn.sqlite ? new SqliteEventAppender(conn.sqlite) : undefined;
  }

  private now(): string {
    return new Date().toISOString();
  }

  append(sessionId: string, inputs: EventInput[]): Promise<StoredEvent[]> {
    assertSessionId(sessionId);
    const checked = checkEventInputs(inputs, this.limits.maxEntryBytes);
    const sqlite = this.sqlite;
    if (sqlite)
      return this.conn.sqliteGate.run("sqlite", async () => sqlite.append(sessionId, checked, this.now(), this.limits.maxEvents));
    return this.write(sessionId, async (trx) => {
      // The row lock: the session exists, and appends to it (events or entries) take turns. Events
      // only record what happened, so they are taken from any process.
      await lockSession(trx, this.w, sessionId, false);
      return checked.length === 0 ? [] : appendEventRows(trx, sessionId, checked, this.now(), this.limits.maxEvents);
    });
  }

  /** `create`: the new session, when the events come with the session they belong to (checked by the store). */
  appendWithin(
    sessionId: string,
    inputs: EventInput[],
    within: (sql: SqlExecutor) => Promise<void>,
    create: SessionMeta | undefined,
  ): Promise<StoredEvent[]> {
    const checked = checkEventInputs(inputs, this.limits.maxEntryBytes);
    const opts = { now: this.now(), maxEvents: this.limits.maxEvents, create };
    return this.write(sessionId, (trx) => appendEventsWithinTrx(trx, this.w, sessionId, checked, opts, within));
  }

  async list(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    assertSessionId(sessionId);
    const { after, limit } = checkListEventsOptions(opts);
    await assertSessionRow(this.conn.db, sessionId);
    return listEventRows(this.conn.db, sessionId, after, limit);
  }

  async lastId(sessionId: string): Promise<number> {
    assertSessionId(sessionId);
    await assertSessionRow(this.conn.db, sessionId);
    return lastEventRowId(this.conn.db, sessionId);
  }

  async purge(sessionId: string, window: EventWindow): Promise<number> {
    assertSessionId(sessionId);
    const n = await this.write(sessionId, async (trx) => {
      await lockSession(trx, this.w, sessionId);
      return purgeEventRows(trx, sessionId, window);
    });
    await checkpoint(this.conn);
    return n;
  }
}
