import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import type { Entry, EntryInput } from "../../model/entry.js";
import { assertEntryId, assertSessionId } from "../../model/ids.js";
import type { SessionInit, SessionMeta, SessionPatch, StoreProvider } from "../../model/session.js";
import { checkAppend, metaAfterBatch, planAppend } from "../append-plan.js";
import { StoreBase } from "../base.js";
import {
  checkEventInputs,
  checkListEventsOptions,
  DEFAULT_MAX_EVENTS_PER_SESSION,
  type EventInput,
  type ListEventsOptions,
  type StoredEvent,
} from "../event-records.js";
import { KeyedLock } from "../keyed-lock.js";
import { DEFAULT_LEASE_TTL_MS, type LeaseHolder, type SessionLease } from "../lease.js";
import { withLockFile } from "../lock-file.js";
import {
  applyEntryPatch,
  DEFAULT_MAX_ENTRY_BYTES,
  metaAfterUpdate,
  missingReferenceError,
  type PrepareContext,
  randomEntryId,
  referencedIds,
} from "../prepare.js";
import { RandomPool } from "../random-pool.js";
import { applySessionPatch, decodeCursor, encodeCursor, newSessionMeta, pageLimit } from "../session-meta.js";
import { reconcileStatus } from "../session-status.js";
import { parseStoreSpec, type StoreSpec } from "../spec.js";
import type { EntryPatch, ListSessionsOptions, SessionPage } from "../store.js";
import { connectSql, currentSchema, inTransaction, type SqlConnection, type SqlSpec } from "./connect.js";
import { appendEventRows, lastEventRowId, listEventRows } from "./event-log.js";
import { migrateToLatest } from "./migrations.js";
import { activePathRows, deleteSessionTree, existingEntryIds, insertEntryRows, lockSessionRow } from "./queries.js";
import { entryNotFound, entryRow, parseEntryRow, parseSessionRow, sessionColumns, sessionNotFound } from "./rows.js";
import { insertSessionRow, sessionPageRows } from "./session-rows.js";
import { isUniqueViolation, toArborError } from "./sql-errors.js";
import { SqlLeases } from "./sql-leases.js";
import { SqliteAppender } from "./sqlite-append.js";
import type { ArborDatabase, EntriesTable, SqlKind } from "./tables.js";

type Db = Kysely<ArborDatabase>;

const MIGRATION_LOCK = {
  purpose: "a schema migration",
  ttlMs: 60_000,
  waitMs: 60_000,
  timeout: () =>
    new ArborError("io_error", "Another process has been bringing the SQLite store's schema up to date for a minute; try again."),
};

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
  private readonly appender: SqliteAppender | undefined;
  private readonly leases: SqlLeases;
  private closed = false;

  private constructor(
    private readonly conn: SqlConnection,
    private readonly maxEntryBytes: number,
    /** SQLite with durability "fsync": appends share commits (see SqliteAppender.appendGrouped). */
    private readonly grouped: boolean,
    private readonly maxEvents: number = DEFAULT_MAX_EVENTS_PER_SESSION,
    leaseTtlMs: number = DEFAULT_LEASE_TTL_MS,
  ) {
    super();
    this.provider = conn.kind;
    this.db = conn.db;
    this.leases = new SqlLeases(conn, leaseTtlMs);
    this.appender = conn.sqlite ? new SqliteAppender(conn.sqlite, this.leases) : undefined;
  }

  static async open(spec: SqlSpec): Promise<SqlStore> {
    const conn = await connectSql(spec);
    try {
      // Kysely's migration lock is keyed by schema; without an explicit one, use the connection's
      // own so that arbor tables in another schema of the same database are not mistaken for ours.
      const schema = conn.kind === "postgres" ? (conn.schema ?? (await currentSchema(conn.db))) : undefined;
      const migrate = () => migrateToLatest(conn.db as Kysely<unknown>, conn.kind, schema);
      // Kysely's migration lock does nothing on SQLite, so two processes creating one new store at
      // once would both create its tables; a lock file beside the database makes them take turns.
      if (conn.kind === "sqlite" && spec.kind === "sqlite" && spec.file !== ":memory:") {
        await withLockFile(`${resolve(spec.file)}.migrate-lock`, MIGRATION_LOCK, migrate);
      } else await migrate();
    } catch (err) {
      await conn.db.destroy().catch(() => {});
      throw toArborError(err, conn.kind, "open");
    }
    return new SqlStore(
      conn,
      spec.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES,
      conn.kind === "sqlite" && spec.durability === "fsync",
      spec.maxEventsPerSession ?? DEFAULT_MAX_EVENTS_PER_SESSION,
      spec.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
    );
  }

  private get kind(): SqlKind {
    return this.conn.kind;
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

  /** A write to one session: one at a time in this process, one transaction in the database. */
  private write<T>(sessionId: string, work: (trx: Db) => Promise<T>): Promise<T> {
    return this.locks.run(sessionId, () => inTransaction(this.conn, work));
  }

  /** The session's row lock; a write that changes the session is refused while another process drives it. */
  private async lockSession(trx: Db, id: string, leased = true): Promise<{ meta: SessionMeta; nextSeq: number }> {
    const row = await lockSessionRow(trx, this.kind, id);
    if (!row) throw sessionNotFound(id);
    if (leased) await this.leases.checkWritable(trx, id);
    return { meta: parseSessionRow(row.data, id), nextSeq: row.next_seq };
  }

  acquireLease(sessionId: string, purpose: string): Promise<SessionLease> {
    return this.guard("take a session lease", async () => {
      assertSessionId(sessionId);
      return this.locks.run(sessionId, () => this.leases.acquire(sessionId, purpose));
    });
  }

  leaseHolder(sessionId: string): Promise<LeaseHolder | undefined> {
    return this.guard("read a session lease", async () => {
      assertSessionId(sessionId);
      return this.leases.holder(sessionId);
    });
  }

  /** A session marked running whose driver is gone reads as interrupted (see `reconcileStatus`). */
  private async liveStatus(meta: SessionMeta): Promise<SessionMeta> {
    if (meta.status !== "running") return meta;
    // The lookups are synchronous in reconcileStatus, so the chain's leases and parents are read first.
    const driven = new Set<string>();
    const parents = new Map<string, string | undefined>();
    let id: string | undefined = meta.id;
    for (let depth = 0; id !== undefined && depth < 64 && !parents.has(id); depth++) {
      if (await this.leases.holder(id)) driven.add(id);
      const parent: string | undefined = id === meta.id ? meta.parentSessionId : (await this.getStoredMeta(id))?.parentSessionId;
      parents.set(id, parent);
      id = parent;
    }
    return reconcileStatus(
      meta,
      (sid) => driven.has(sid),
      (sid) => parents.get(sid),
    );
  }

  private async getStoredMeta(id: string): Promise<SessionMeta | undefined> {
    const row = await this.db.selectFrom("arbor_sessions").select("data").where("id", "=", id).executeTakeFirst();
    return row ? parseSessionRow(row.data, id) : undefined;
  }

  private async saveMeta(trx: Db, meta: SessionMeta, nextSeq?: number): Promise<void> {
    await trx
      .updateTable("arbor_sessions")
      .set({ ...sessionColumns(meta), ...(nextSeq === undefined ? {} : { next_seq: nextSeq }) })
      .where("id", "=", meta.id)
      .execute();
  }

  private async hasSession(id: string): Promise<boolean> {
    const row = await this.db.selectFrom("arbor_sessions").select("id").where("id", "=", id).executeTakeFirst();
    return row !== undefined;
  }

  private now(): string {
    return new Date().toISOString();
  }

  private prepareContext(prevalidated = false): Omit<PrepareContext, "leafId"> {
    return { now: this.now(), newId: () => randomEntryId(this.random.bytes), maxEntryBytes: this.maxEntryBytes, prevalidated };
  }

  private checkSize(json: string): void {
    if (json.length * 3 > this.maxEntryBytes && Buffer.byteLength(json) > this.maxEntryBytes) {
      throw new ArborError(
        "entry_too_large",
        `Entry of ${Buffer.byteLength(json)} bytes exceeds the ${this.maxEntryBytes}-byte limit; store large content out of line.`,
      );
    }
  }

  createSession(init?: SessionInit): Promise<SessionMeta> {
    return this.guard("create a session", async () => {
      if (init?.id !== undefined) assertSessionId(init.id);
      if (init?.parentSessionId !== undefined) assertSessionId(init.parentSessionId);
      const meta = newSessionMeta(init, this.provider, init?.id ?? randomUUID(), this.now());
      await this.assertParentAllowed(meta.id, meta.parentSessionId);
      await insertSessionRow(this.db, meta, 0);
      return meta;
    });
  }

  getSession(id: string): Promise<SessionMeta | undefined> {
    return this.guard("read a session", async () => {
      assertSessionId(id);
      const meta = await this.getStoredMeta(id);
      return meta && this.liveStatus(meta);
    });
  }

  updateSession(id: string, patch: SessionPatch): Promise<SessionMeta> {
    return this.guard("update a session", async () => {
      assertSessionId(id);
      return this.write(id, async (trx) => {
        const { meta } = await this.lockSession(trx, id);
        const next = applySessionPatch(meta, patch, this.now());
        await this.saveMeta(trx, next);
        return next;
      });
    });
  }

  deleteSession(id: string): Promise<void> {
    return this.guard("delete a session", async () => {
      assertSessionId(id);
      await this.write(id, async (trx) => {
        await this.lockSession(trx, id);
        // Deletes and runs exclude each other: nothing of the tree goes while anyone drives part of it.
        await deleteSessionTree(trx, this.kind, id, (ids) => this.leases.checkIdle(trx, ids));
      });
    });
  }

  appendEvents(sessionId: string, inputs: EventInput[]): Promise<StoredEvent[]> {
    return this.guard("append events", async () => {
      assertSessionId(sessionId);
      const checked = checkEventInputs(inputs, this.maxEntryBytes);
      return this.write(sessionId, async (trx) => {
        // The row lock: the session exists, and appends to it (events or entries) take turns. Events
        // only record what happened, so they are taken from any process.
        await this.lockSession(trx, sessionId, false);
        return checked.length === 0 ? [] : appendEventRows(trx, sessionId, checked, this.now(), this.maxEvents);
      });
    });
  }

  listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    return this.guard("list events", async () => {
      assertSessionId(sessionId);
      const { after, limit } = checkListEventsOptions(opts);
      if (!(await this.hasSession(sessionId))) throw sessionNotFound(sessionId);
      return listEventRows(this.db, sessionId, after, limit);
    });
  }

  lastEventId(sessionId: string): Promise<number> {
    return this.guard("read the last event id", async () => {
      assertSessionId(sessionId);
      if (!(await this.hasSession(sessionId))) throw sessionNotFound(sessionId);
      return lastEventRowId(this.db, sessionId);
    });
  }

  listSessions(opts?: ListSessionsOptions): Promise<SessionPage> {
    return this.guard("list sessions", async () => {
      const limit = pageLimit(opts?.limit);
      const cursor = opts?.cursor === undefined ? undefined : decodeCursor(opts.cursor);
      const parent = opts?.parentSessionId;
      if (parent !== undefined && parent !== null) assertSessionId(parent);
      const page = await sessionPageRows(this.db, { limit, cursor, parent });
      const more = page.more;
      const sessions = await Promise.all(page.sessions.map((m) => this.liveStatus(m)));
      const last = sessions[sessions.length - 1];
      return more && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
    });
  }

  listEntries(sessionId: string): Promise<Entry[]> {
    return this.guard("list entries", async () => {
      assertSessionId(sessionId);
      const rows = await this.db
        .selectFrom("arbor_entries")
        .select("data")
        .where("session_id", "=", sessionId)
        .orderBy("seq")
        .execute();
      if (rows.length === 0 && !(await this.hasSession(sessionId))) throw sessionNotFound(sessionId);
      return rows.map((r) => parseEntryRow(r.data, sessionId));
    });
  }

  getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    return this.guard("read an entry", async () => {
      assertSessionId(sessionId);
      assertEntryId(entryId);
      const row = await this.db
        .selectFrom("arbor_entries")
        .select("data")
        .where("session_id", "=", sessionId)
        .where("id", "=", entryId)
        .executeTakeFirst();
      if (row) return parseEntryRow(row.data, sessionId);
      if (!(await this.hasSession(sessionId))) throw sessionNotFound(sessionId);
      return undefined;
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
      if (appender) {
        return this.conn.sqliteGate.run("sqlite", async () => appender.append(sessionId, entries, ctx));
      }
      return this.write(sessionId, (trx) => this.appendInTransaction(trx, sessionId, entries, ctx));
    });
  }

  private async appendInTransaction(
    trx: Db,
    sessionId: string,
    inputs: readonly unknown[],
    ctx: Omit<PrepareContext, "leafId">,
  ): Promise<Entry[]> {
    const { meta, nextSeq } = await this.lockSession(trx, sessionId);
    const plan = planAppend(inputs, meta.leafEntryId, ctx);
    const existing = await existingEntryIds(trx, sessionId, plan.lookups);
    checkAppend(sessionId, plan, (id) => existing.has(id));
    const rows: EntriesTable[] = plan.prepared.map(({ entry, json }, i) => entryRow(sessionId, entry, json, nextSeq + i));
    try {
      await insertEntryRows(trx, rows);
    } catch (err) {
      // Only reachable if the table was changed behind the row lock (e.g. by hand).
      if (isUniqueViolation(err))
        throw new ArborError("duplicate_entry", `An entry id of this batch is already used in session ${sessionId}.`);
      throw err;
    }
    const appended = plan.prepared.map((p) => p.entry);
    await this.saveMeta(trx, metaAfterBatch(meta, appended), nextSeq + rows.length);
    return appended;
  }

  updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry> {
    return this.guard("update an entry", async () => {
      assertSessionId(sessionId);
      assertEntryId(entryId);
      return this.write(sessionId, async (trx) => {
        const { meta } = await this.lockSession(trx, sessionId);
        const row = await trx
          .selectFrom("arbor_entries")
          .select("data")
          .where("session_id", "=", sessionId)
          .where("id", "=", entryId)
          .executeTakeFirst();
        if (!row) throw entryNotFound(sessionId, entryId);
        const before = parseEntryRow(row.data, sessionId);
        const after = applyEntryPatch(before, patch);
        // A patch may repoint a label, compaction or branch summary; the target must exist like on append.
        const refs = referencedIds(after).filter((r) => r !== after.parentId);
        const existing = await existingEntryIds(trx, sessionId, refs);
        for (const ref of refs) if (!existing.has(ref)) throw missingReferenceError(sessionId, after, ref);
        const json = JSON.stringify(after);
        this.checkSize(json);
        await trx
          .updateTable("arbor_entries")
          .set({ data: json })
          .where("session_id", "=", sessionId)
          .where("id", "=", entryId)
          .execute();
        await this.saveMeta(trx, metaAfterUpdate(meta, before, after));
        return after;
      });
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
    return this.write(sessionId, async (trx) => {
      const { meta } = await this.lockSession(trx, sessionId);
      if (leafId !== null && !(await existingEntryIds(trx, sessionId, [leafId])).has(leafId)) {
        throw entryNotFound(sessionId, leafId);
      }
      const now = this.now();
      const next = { ...meta, leafEntryId: leafId, updatedAt: now > meta.updatedAt ? now : meta.updatedAt };
      await this.saveMeta(trx, next);
      return next;
    });
  }

  getActivePath(sessionId: string): Promise<Entry[]> {
    return this.guard("read the active path", async () => {
      assertSessionId(sessionId);
      const path = await activePathRows(this.db, sessionId);
      if (path.length > 0) return path;
      const row = await this.db
        .selectFrom("arbor_sessions")
        .select("leaf_entry_id")
        .where("id", "=", sessionId)
        .executeTakeFirst();
      if (!row) throw sessionNotFound(sessionId);
      if (row.leaf_entry_id !== null) {
        throw new ArborError("corrupt_session", `Session ${sessionId}: its leaf ${row.leaf_entry_id} is not among its entries.`);
      }
      return [];
    });
  }

  protected writeImported(meta: SessionMeta, entries: Entry[]): Promise<SessionMeta> {
    return this.guard("import a session", async () => {
      assertSessionId(meta.id);
      const rows = entries.map((entry, seq) => {
        const json = JSON.stringify(entry);
        this.checkSize(json);
        return entryRow(meta.id, entry, json, seq);
      });
      return this.write(meta.id, async (trx) => {
        await insertSessionRow(trx, meta, rows.length);
        await insertEntryRows(trx, rows);
        return meta;
      });
    });
  }

  protected markBranched(id: string, from: { sessionId: string; entryId: string }): Promise<SessionMeta> {
    return this.guard("record a branch", async () => {
      assertSessionId(id);
      return this.write(id, async (trx) => {
        const { meta } = await this.lockSession(trx, id);
        const next = { ...meta, branchedFrom: from };
        await this.saveMeta(trx, next);
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
    await this.db.destroy();
  }
}

/** Opens (and migrates) a SQL store: `sqlite:<file>`, `sqlite::memory:`, `mysql://…` or `postgres://…`. */
export async function openSqlStore(spec: StoreSpec | string): Promise<SqlStore> {
  const s = parseStoreSpec(spec);
  if (s.kind === "file")
    throw new ArborError(
      "invalid_store_spec",
      "openSqlStore opens sqlite, mysql or postgres stores; use openStore for a directory.",
    );
  return SqlStore.open(s);
}
