import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import { assertEntryId, assertSessionId } from "../../model/ids.js";
import type { SessionInit, SessionMeta, SessionPatch, StoreProvider } from "../../model/session.js";
import type { PurgeMark } from "../../session/purge-entry.js";
import type { AskAnswer, AskInput, AskRecord, ListAsksOptions } from "../asks.js";
import { StoreBase } from "../base.js";
import type { EventInput, EventWindow, ListEventsOptions, StoredEvent } from "../event-records.js";
import type { InboxPage } from "../inbox.js";
import { KeyedLock } from "../keyed-lock.js";
import type { LeaseHolder, LeaseOptions, SessionLease } from "../lease.js";
import type { LivePath } from "../live-path.js";
import { MsClock } from "../ms-clock.js";
import { checkEntrySize, type PrepareContext, randomEntryId } from "../prepare.js";
import { RandomPool } from "../random-pool.js";
import { applySessionPatch, newSessionMeta } from "../session-meta.js";
import type { EntryPatch, ListSessionsOptions, SessionPage, SqlExecutor } from "../store.js";
import type { TokenStore } from "../tokens.js";
import { inTransaction, type SqlConnection, sqliteNow } from "./connect.js";
import { entryRowById, entryRows } from "./entry-reads.js";
import { deleteSessionTree, lockSessionRow } from "./queries.js";
import { sessionNotFound } from "./rows.js";
import { insertSessionRow, listSessionPage } from "./session-rows.js";
import { SqlAsks } from "./sql-asks.js";
import {
  appendInTransaction,
  liveStatus,
  lockSession,
  moveLeafInTransaction,
  type SqlWriter,
  saveMeta,
  storedMeta,
  updateEntryInTransaction,
} from "./sql-entry-writes.js";
import { toArborError } from "./sql-errors.js";
import { checkpoint, SqlEventLog } from "./sql-event-store.js";
import { importedEntryRows, insertImported } from "./sql-import.js";
import { SqlInbox } from "./sql-inbox.js";
import { SqlLeases } from "./sql-leases.js";
import { SqlPathReads } from "./sql-path-reads.js";
import { purgeInTransaction } from "./sql-purge.js";
import { sqlTokens } from "./sql-tokens.js";
import { SqliteAppender } from "./sqlite-append.js";
import type { ArborDatabase, SqlKind } from "./tables.js";

type Db = Kysely<ArborDatabase>;

export interface SqlStoreOptions {
  maxEntryBytes: number;
  /** SQLite with durability "fsync": appends share commits (see SqliteAppender.appendGrouped). */
  grouped: boolean;
  maxEvents: number;
  leaseTtlMs: number;
}

/**
 * The Store on SQLite, MySQL/MariaDB or PostgreSQL through Kysely. Writes to one session are
 * serialized in process by a KeyedLock and across processes by the session row lock (SQLite: the
 * database write lock), so several servers can share one database.
 */
export class SqlStore extends StoreBase {
  readonly provider: StoreProvider;
  private readonly db: Db;
  private readonly locks = new KeyedLock();
  private readonly random = new RandomPool();
  private readonly clock = new MsClock();
  private readonly appender: SqliteAppender | undefined;
  /** Inbox pages, and on SQLite whether a driven session's inbox may hold something new (see SqlInbox). */
  private readonly inbox: SqlInbox;
  /** Active and live paths, from the leaf readers see (see SqlPathReads). */
  private readonly paths: SqlPathReads;
  /** Each session's event log (see SqlEventLog). */
  private readonly log: SqlEventLog;
  private readonly leases: SqlLeases;
  private readonly asks: SqlAsks;
  private readonly maxEntryBytes: number;
  /** SQLite with durability "fsync": appends share commits (see SqliteAppender.appendGrouped). */
  private readonly grouped: boolean;
  /** What the transaction bodies in sql-entry-writes need of the store. */
  private readonly w: SqlWriter;
  private closed = false;
  readonly tokens: TokenStore;

  /** Use `openSqlStore`, which connects and brings the schema up to date first. */
  constructor(
    private readonly conn: SqlConnection,
    opts: SqlStoreOptions,
  ) {
    super();
    this.provider = conn.kind;
    this.db = conn.db;
    this.maxEntryBytes = opts.maxEntryBytes;
    this.grouped = opts.grouped;
    this.inbox = new SqlInbox(conn, (id) => this.leases.holds(id));
    const settle = async (id: string) => void (await this.onSqlite((a) => a.settle(id)));
    this.leases = new SqlLeases(conn, opts.leaseTtlMs, (id) => this.inbox.end(id), settle);
    this.asks = new SqlAsks(this.db);
    this.appender = conn.sqlite ? new SqliteAppender(conn.sqlite, this.leases, () => this.inbox.sampled()) : undefined;
    this.paths = new SqlPathReads(conn, this.appender);
    this.w = { kind: conn.kind, leases: this.leases };
    this.log = new SqlEventLog(conn, this.w, (id, work) => this.write(id, work), opts);
    this.tokens = sqlTokens(this.db, (what, op) => this.guard(what, op));
  }

  private get kind(): SqlKind {
    return this.conn.kind;
  }

  /** SQLite: `work` on the prepared-statement path, at once or after what holds the connection; else undefined. */
  private onSqlite<T>(work: (appender: SqliteAppender) => T): Promise<T | undefined> {
    const appender = this.appender;
    return appender ? sqliteNow(this.conn, () => work(appender)) : Promise.resolve(undefined);
  }

  /** Every public operation: refuses after close, and turns driver failures into ArborErrors. */
  private async guard<T>(what: string, op: () => Promise<T>): Promise<T> {
    if (this.closed) throw new ArborError("store_closed", "The store is closed; open it again to use it.");
    try {
      return await op();
    } catch (err) {
      throw toArborError(err, this.kind, what);
    }
  }

  /**
   * A write to one session: one at a time in this process, one transaction in the database. On
   * SQLite the transaction first makes a lagging session row exact (see sqlite-session-tail.ts),
   * so the write reads and rewrites the row as every reader sees it.
   */
  private write<T>(sessionId: string, work: (trx: Db) => Promise<T>): Promise<T> {
    const appender = this.appender;
    const settled = appender
      ? async (trx: Db) => {
          appender.settleWithin(sessionId);
          return work(trx);
        }
      : work;
    return this.locks.run(sessionId, () => inTransaction(this.conn, settled));
  }

  acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease> {
    return this.guard("take a session lease", async () => {
      assertSessionId(sessionId);
      // What was kept of the session's row before this lease may have been changed by others since.
      this.appender?.forget(sessionId);
      return this.locks.run(sessionId, () => this.leases.acquire(sessionId, purpose, options));
    });
  }

  leaseHolder(sessionId: string): Promise<LeaseHolder | undefined> {
    return this.guard("read a session lease", async () => {
      assertSessionId(sessionId);
      return this.leases.holder(sessionId);
    });
  }

  private now(): string {
    return this.clock.now();
  }

  private prepareContext(prevalidated = false): Omit<PrepareContext, "leafId"> {
    return { now: this.now(), newId: () => randomEntryId(this.random.bytes), maxEntryBytes: this.maxEntryBytes, prevalidated };
  }

  createSession(init?: SessionInit): Promise<SessionMeta> {
    return this.guard("create a session", async () => {
      if (init?.id !== undefined) assertSessionId(init.id);
      if (init?.parentSessionId !== undefined) assertSessionId(init.parentSessionId);
      const meta = newSessionMeta(init, this.provider, init?.id ?? randomUUID(), this.creationTime());
      await this.assertParentAllowed(meta.id, meta.parentSessionId);
      const appender = this.appender;
      if (appender) await sqliteNow(this.conn, () => appender.insertSession(meta));
      else await insertSessionRow(this.db, meta, 0);
      return meta;
    });
  }

  getSession(id: string): Promise<SessionMeta | undefined> {
    return this.guard("read a session", async () => {
      assertSessionId(id);
      const appender = this.appender;
      const meta = appender ? await sqliteNow(this.conn, () => appender.readMeta(id)) : await storedMeta(this.db, id);
      return meta && liveStatus(this.db, this.leases, meta);
    });
  }

  updateSession(id: string, patch: SessionPatch): Promise<SessionMeta> {
    return this.guard("update a session", async () => {
      assertSessionId(id);
      const appender = this.appender;
      // SQLite with a commit per write, nothing of this session's queued and nothing holding the
      // connection: the synchronous path (see SqliteAppender.update) cannot pass or join another write.
      if (appender && !this.grouped) {
        const update = () => appender.update(id, (meta) => applySessionPatch(meta, patch, this.now()));
        if (!this.locks.busy(id) && !this.conn.sqliteGate.busy("sqlite")) return update();
        // Sibling sub-traces keep the connection busy, so a sub-trace's updates mostly land here: the
        // same prepared statements once this session's queued writes and the connection's holder are
        // done, where Kysely compiled the lock, read and write again on every call.
        return this.locks.run(id, () => sqliteNow(this.conn, update));
      }
      return this.write(id, async (trx) => {
        const { meta } = await lockSession(trx, this.w, id);
        const next = applySessionPatch(meta, patch, this.now());
        await saveMeta(trx, next);
        return next;
      });
    });
  }

  deleteSession(id: string): Promise<void> {
    return this.guard("delete a session", async () => {
      assertSessionId(id);
      await this.write(id, async (trx) => {
        // The row is locked, not read: a session whose row is damaged can still be deleted.
        if (!(await lockSessionRow(trx, this.kind, id))) throw sessionNotFound(id);
        // Deletes and runs exclude each other: nothing of the tree goes while anyone drives part of it.
        await deleteSessionTree(trx, this.kind, id, (ids) => this.leases.checkIdle(trx, ids));
      });
    });
  }

  /** An inbox message among the events is noted for the run that reads it (see SqliteInboxLook). */
  appendEvents(sessionId: string, inputs: EventInput[]): Promise<StoredEvent[]> {
    return this.guard("append events", () => this.inbox.posting(sessionId, inputs, () => this.log.append(sessionId, inputs)));
  }

  appendEventsWithin(
    sessionId: string,
    inputs: EventInput[],
    within: (sql: SqlExecutor) => Promise<void>,
    create?: SessionInit,
  ): Promise<StoredEvent[]> {
    return this.guard("append events", async () => {
      assertSessionId(sessionId);
      if (create?.parentSessionId !== undefined) {
        throw new ArborError("invalid_input", "A session created with queued events is a top-level one: it takes no parent.");
      }
      const meta = create && newSessionMeta(create, this.provider, sessionId, this.creationTime());
      this.appender?.forget(sessionId);
      return this.inbox.posting(sessionId, inputs, () => this.log.appendWithin(sessionId, inputs, within, meta));
    });
  }

  listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    return this.guard("list events", () => this.log.list(sessionId, opts));
  }

  /** On SQLite, a driven session's read is remembered (see SqlInbox). */
  override readInbox(sessionId: string, after?: string): Promise<InboxPage> {
    return this.guard("read the inbox", async () => {
      assertSessionId(sessionId);
      return this.inbox.read(sessionId, after);
    });
  }

  /** A boolean a step asks instead of reading (see SqlInbox); PostgreSQL and MySQL read every step. */
  inboxMayHaveNew(sessionId: string, after: string): boolean {
    return this.closed || this.inbox.mayHaveNew(sessionId, after);
  }

  /** Rows of their own, outside any session's lock: any process may ask or answer, whoever drives the session. */
  createAsk(ask: AskInput): Promise<AskRecord> {
    return this.guard("record an ask", () => this.asks.create(ask));
  }

  getAsk(id: string): Promise<AskRecord | undefined> {
    return this.guard("read an ask", () => this.asks.get(id));
  }

  listAsks(opts?: ListAsksOptions): Promise<AskRecord[]> {
    return this.guard("list asks", () => this.asks.list(opts));
  }

  answerAsk(id: string, answer: AskAnswer): Promise<AskRecord> {
    return this.guard("answer an ask", () => this.asks.answer(id, answer));
  }

  lastEventId(sessionId: string): Promise<number> {
    return this.guard("read the last event id", () => this.log.lastId(sessionId));
  }

  listSessions(opts?: ListSessionsOptions): Promise<SessionPage> {
    return this.guard("list sessions", () =>
      listSessionPage(this.db, this.provider, opts, {
        fold: (metas, lagging) => this.onSqlite((a) => a.folded(metas, lagging)),
        live: (meta) => liveStatus(this.db, this.leases, meta),
      }),
    );
  }

  listEntries(sessionId: string): Promise<Entry[]> {
    return this.guard("list entries", async () => {
      assertSessionId(sessionId);
      return entryRows(this.db, this.kind, sessionId);
    });
  }

  getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    return this.guard("read an entry", async () => {
      assertSessionId(sessionId);
      assertEntryId(entryId);
      return entryRowById(this.db, sessionId, entryId);
    });
  }

  protected appendInputs(sessionId: string, entries: readonly unknown[], prevalidated: boolean): Promise<Entry[]> {
    return this.guard("append entries", async () => {
      assertSessionId(sessionId);
      if (!Array.isArray(entries)) throw new ArborError("invalid_input", "appendEntries takes an array of entries.");
      const appender = this.appender;
      const ctx = this.prepareContext(prevalidated);
      if (appender && this.grouped) {
        return appender.appendGrouped(sessionId, entries, ctx, (flush) => this.conn.sqliteGate.run("sqlite", flush));
      }
      // Nothing else holding the connection, the synchronous append cannot be interleaved: it runs at once.
      if (appender) return sqliteNow(this.conn, () => appender.append(sessionId, entries, ctx));
      return this.write(sessionId, (trx) => appendInTransaction(trx, this.w, sessionId, entries, ctx));
    });
  }

  updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry> {
    return this.guard("update an entry", async () => {
      assertSessionId(sessionId);
      assertEntryId(entryId);
      return this.write(sessionId, (trx) =>
        updateEntryInTransaction(trx, this.w, sessionId, entryId, patch, (json) => checkEntrySize(json, this.maxEntryBytes)),
      );
    });
  }

  purgeEvents(sessionId: string, window: EventWindow): Promise<number> {
    return this.guard("erase events", () => this.log.purge(sessionId, window));
  }

  purgeEntries(sessionId: string, entryIds: readonly string[], mark: PurgeMark): Promise<Entry[]> {
    return this.guard("erase entries", async () => {
      assertSessionId(sessionId);
      for (const id of entryIds) assertEntryId(id);
      const tombstones = await this.write(sessionId, (trx) => purgeInTransaction(trx, this.w, sessionId, entryIds, mark));
      // SQLite (secure_delete on) zeroes the freed bytes in the pages; the WAL goes at the checkpoint.
      await checkpoint(this.conn);
      return tombstones;
    });
  }

  switchLeaf(sessionId: string, entryId: string): Promise<SessionMeta> {
    return this.guard("switch the leaf", async () => {
      assertSessionId(sessionId);
      assertEntryId(entryId);
      return this.moveLeaf(sessionId, entryId);
    });
  }

  resetLeaf(sessionId: string): Promise<SessionMeta> {
    return this.guard("reset the leaf", async () => {
      assertSessionId(sessionId);
      return this.moveLeaf(sessionId, null);
    });
  }

  private moveLeaf(sessionId: string, leafId: string | null): Promise<SessionMeta> {
    return this.write(sessionId, (trx) => moveLeafInTransaction(trx, this.w, sessionId, leafId, this.now()));
  }

  getActivePath(sessionId: string): Promise<Entry[]> {
    return this.guard("read the active path", async () => {
      assertSessionId(sessionId);
      return this.paths.activePath(sessionId);
    });
  }

  override getLivePath(sessionId: string): Promise<LivePath> {
    return this.guard("read the live path", async () => {
      assertSessionId(sessionId);
      return this.paths.livePath(sessionId);
    });
  }

  protected writeImported(meta: SessionMeta, entries: Entry[]): Promise<SessionMeta> {
    return this.guard("import a session", async () => {
      assertSessionId(meta.id);
      const rows = importedEntryRows(this.kind, meta, entries, this.maxEntryBytes);
      return this.write(meta.id, (trx) => insertImported(trx, meta, rows));
    });
  }

  protected markBranched(id: string, from: { sessionId: string; entryId: string }): Promise<SessionMeta> {
    return this.guard("record a branch", async () => {
      assertSessionId(id);
      return this.write(id, async (trx) => {
        const { meta } = await lockSession(trx, this.w, id);
        const next = { ...meta, branchedFrom: from };
        await saveMeta(trx, next);
        return next;
      });
    });
  }

  /** Waits for queued writes, then ends the pool (or closes the SQLite file). Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.locks.drain();
    await this.conn.sqliteGate.drain();
    await this.leases.releaseAll();
    await this.conn.checkpointer?.close();
    await this.db.destroy();
  }
}
