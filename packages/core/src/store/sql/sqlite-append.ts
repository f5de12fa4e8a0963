import type BetterSqlite3 from "better-sqlite3";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { checkAppend, metaAfterBatch, planAppend } from "../append-plan.js";
import type { PrepareContext } from "../prepare.js";
import { sessionColumns, sessionExists, sessionNotFound } from "./rows.js";
import { isUniqueViolation } from "./sql-errors.js";
import type { SqlLeases } from "./sql-leases.js";
import { SqliteSessionTail, TAIL_SPAN } from "./sqlite-session-tail.js";

type Context = Omit<PrepareContext, "leafId">;

interface Written {
  sessionId: string;
  meta: SessionMeta;
  nextSeq: number;
  /** The row's `tail_seq` as committed (see sqlite-session-tail.ts): null when the row is exact. */
  tail: number | null;
}

interface QueuedAppend {
  sessionId: string;
  inputs: readonly unknown[];
  ctx: Context;
  resolve: (entries: Entry[]) => void;
  reject: (err: unknown) => void;
  result?: Entry[];
  error?: unknown;
}

/**
 * The SQLite append path, on better-sqlite3 prepared statements in one synchronous transaction.
 * Through Kysely each of the five statements of an append is compiled, re-prepared by the driver
 * and awaited: measured at ~90 µs p50 per appendMessage on the 2-core dev machine, against a 50 µs
 * budget. Here an append is one call with no await inside (~37 µs p50). Everything else on SQLite
 * still goes through Kysely.
 */
export class SqliteAppender {
  private readonly run: (sessionId: string, inputs: readonly unknown[], ctx: Context) => Entry[];
  private readonly runUpdate: (sessionId: string, patch: (meta: SessionMeta) => SessionMeta) => SessionMeta;
  /**
   * The session's meta (`storedMeta` on a prepared statement, with the row's tail folded in: every
   * run reads its session back twice as it ends). The caller holds the SQLite gate, or nothing does.
   */
  readonly readMeta: (sessionId: string) => SessionMeta | undefined;
  /** The session's leaf (undefined: no such session), the lease holder's without a read. Same gate rule. */
  readonly leafOf: (sessionId: string) => string | null | undefined;
  /** Writes the exact row of a session whose row lags (see `settle`); the caller is in a write transaction. */
  readonly settleWithin: (sessionId: string) => void;
  private readonly settleNow: (sessionId: string) => void;
  /** The stored `tail_seq` of a session (see sqlite-session-tail.ts); same gate rule. */
  readonly tailOf: (sessionId: string) => number | null | undefined;
  /** `insertSessionRow` of a new session (no entries yet) on a prepared statement: every new session's run makes one. Same gate rule. */
  readonly insertSession: (meta: SessionMeta) => void;
  /** Leased sessions' rows as this store last committed them (see `append`). */
  private readonly kept = new Map<string, Written>();
  /** What the transaction running now wrote to the session row, kept once it commits. */
  private written: Written | undefined;

  constructor(
    handle: BetterSqlite3.Database,
    private readonly leases: SqlLeases,
    /** Called at the start of each append's transaction (see SqliteInboxLook.sampled). */
    inTransaction: () => void = () => {},
  ) {
    const selectLease = handle.prepare<[string], { holder: string; expires_at: number; token: string }>(
      "select holder, expires_at, token from arbor_leases where session_id = ?",
    );
    const rows = new SqliteSessionTail(handle);
    const entryExists = handle
      .prepare<[string, string], number>("select 1 from arbor_entries where session_id = ? and id = ?")
      .pluck();
    // No seq: SQLite numbers the row (see EntriesTable.seq).
    const insertEntry = handle.prepare<[string, string, string | null, string, string, string]>(
      "insert into arbor_entries (session_id, id, parent_id, type, timestamp, data) values (?, ?, ?, ?, ?, ?)",
    );
    const updateSession = handle.prepare<[string, string | null, string | null, string, number, number | null, string]>(
      "update arbor_sessions set updated_at = ?, leaf_entry_id = ?, root_entry_id = ?, data = ?, next_seq = ?, tail_seq = ? where id = ?",
    );
    const updateMeta = handle.prepare<[string, string | null, string | null, string | null, string, string]>(
      "update arbor_sessions set updated_at = ?, cwd = ?, leaf_entry_id = ?, root_entry_id = ?, data = ?, tail_seq = null where id = ?",
    );
    /** The kept row of a session this store holds the lease of; undefined otherwise. */
    const keptOf = (sessionId: string): Written | undefined => (leases.holds(sessionId) ? this.kept.get(sessionId) : undefined);
    /** Rewrites the row as `w` has it, exact (tail_seq null) unless `tail` says up to which entry. */
    const writeRow = (w: Omit<Written, "tail">, tail: number | null) => {
      const cols = sessionColumns(w.meta);
      updateSession.run(cols.updated_at, cols.leaf_entry_id, cols.root_entry_id, cols.data, w.nextSeq, tail, w.sessionId);
    };

    /** The session's row as the write about to change it must see it, behind the lease fence. */
    const current = (sessionId: string, kept = keptOf(sessionId)): Written => {
      // While this store holds the lease no other process writes the session, and every other write of
      // this store forgets what is kept here: the row as last written is known without reading it.
      if (kept) {
        // The fence still reads the lease row: a lease that expired in the store's view (this process
        // stalled) may have been taken by another, whose writes the kept row does not know.
        leases.checkRow(sessionId, () => selectLease.get(sessionId));
        return kept;
      }
      const row = rows.read(sessionId);
      if (!row) throw sessionNotFound(sessionId);
      leases.checkRow(sessionId, () => selectLease.get(sessionId));
      return { sessionId, meta: row.meta, nextSeq: row.nextSeq, tail: row.tail };
    };

    /** `lag`: the row may lag these entries (see sqlite-session-tail.ts), false where nothing keeps the row (group commit). */
    const append = (sessionId: string, inputs: readonly unknown[], ctx: Context, lag: boolean): Entry[] => {
      inTransaction();
      // Looked up once: the lease check behind it runs on every append.
      const kept = keptOf(sessionId);
      const { meta, nextSeq } = current(sessionId, kept);
      // Ids made here are fresh random 64-bit values: the primary key refuses the impossible repeat,
      // so they skip the lookup. So does the leaf the session row names (its entry was written with it).
      const made = new Set<string>();
      const newId = () => {
        const id = ctx.newId();
        made.add(id);
        return id;
      };
      const plan = planAppend(inputs, meta.leafEntryId, { ...ctx, newId });
      checkAppend(
        sessionId,
        plan,
        (id) => id === meta.leafEntryId || (!made.has(id) && entryExists.get(sessionId, id) !== undefined),
      );
      let seq = nextSeq;
      let last = 0;
      try {
        for (const { entry, json } of plan.prepared) {
          last = Number(insertEntry.run(sessionId, entry.id, entry.parentId, entry.type, entry.timestamp, json).lastInsertRowid);
          seq++;
        }
      } catch (err) {
        if (isUniqueViolation(err))
          throw new ArborError("duplicate_entry", `An entry id of this batch is already used in session ${sessionId}.`);
        throw err;
      }
      const entries = plan.prepared.map((p) => p.entry);
      const written = { sessionId, meta: metaAfterBatch(meta, entries), nextSeq: seq };
      // The lease holder's row already lags with a tail that reaches these entries: readers fold them in.
      if (lag && kept && kept.tail !== null && entries.length > 0 && last <= kept.tail + TAIL_SPAN) {
        this.written = { ...written, tail: kept.tail };
        return entries;
      }
      // Only a holder's row may lag (it alone skips the rewrite, and makes the row exact when it stops).
      const tail = lag && leases.holds(sessionId) && entries.length > 0 ? last : null;
      writeRow(written, tail);
      this.written = { ...written, tail };
      return entries;
    };
    // IMMEDIATE takes the write lock at BEGIN, so a concurrent writer in another process makes us
    // wait (busy timeout) instead of failing the read-then-write upgrade.
    const transaction = handle.transaction(append);
    this.run = (sessionId, inputs, ctx) => transaction.immediate(sessionId, inputs, ctx, true);
    const updateRow = handle.transaction((sessionId: string, patch: (meta: SessionMeta) => SessionMeta): SessionMeta => {
      const { meta, nextSeq } = current(sessionId);
      const next = patch(meta);
      const cols = sessionColumns(next);
      updateMeta.run(cols.updated_at, cols.cwd, cols.leaf_entry_id, cols.root_entry_id, cols.data, sessionId);
      this.written = { sessionId, meta: next, nextSeq, tail: null };
      return next;
    });
    this.runUpdate = (sessionId, patch) => updateRow.immediate(sessionId, patch);
    const insertSession = handle.prepare<
      [string, string, string | null, string, string | null, string | null, string | null, string]
    >(
      "insert into arbor_sessions (id, created_at, parent_session_id, next_seq, updated_at, cwd, leaf_entry_id, root_entry_id, data) values (?, ?, ?, 0, ?, ?, ?, ?, ?)",
    );
    this.insertSession = (meta) => {
      const cols = sessionColumns(meta);
      try {
        insertSession.run(
          meta.id,
          meta.createdAt,
          meta.parentSessionId ?? null,
          cols.updated_at,
          cols.cwd,
          cols.leaf_entry_id,
          cols.root_entry_id,
          cols.data,
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw sessionExists(meta.id);
        throw err;
      }
    };
    this.readMeta = (sessionId) => {
      const kept = keptOf(sessionId);
      // A copy: the kept row is what the next append builds on.
      return kept ? { ...kept.meta } : rows.read(sessionId)?.meta;
    };
    this.leafOf = (sessionId) => {
      const kept = keptOf(sessionId);
      return kept ? kept.meta.leafEntryId : rows.leaf(sessionId);
    };
    this.tailOf = rows.tailOf;
    this.settleWithin = (sessionId) => {
      const kept = keptOf(sessionId);
      this.kept.delete(sessionId);
      if (kept?.tail === null) return;
      const fenced = () => {
        try {
          leases.checkRow(sessionId, () => selectLease.get(sessionId));
          return true;
        } catch {
          // Another process drives the session now: its row is its own to settle.
          return false;
        }
      };
      if (kept) {
        if (fenced()) writeRow(kept, null);
        return;
      }
      if (rows.tailOf(sessionId) == null || !fenced()) return;
      let row: ReturnType<typeof rows.read>;
      try {
        row = rows.read(sessionId);
      } catch {
        // A damaged row is the write's to report, or to delete: it is not settled.
        return;
      }
      if (row) writeRow({ sessionId, meta: row.meta, nextSeq: row.nextSeq }, null);
    };
    const settleTransaction = handle.transaction(this.settleWithin);
    this.settleNow = (sessionId) => settleTransaction.immediate(sessionId);
    // Called inside `group`, the same transaction function becomes a SAVEPOINT: one append that
    // fails rolls back alone while the others commit together.
    this.group = handle.transaction((batch: QueuedAppend[]) => {
      for (const q of batch) {
        try {
          q.result = transaction(q.sessionId, q.inputs, q.ctx, false);
        } catch (err) {
          q.error = err;
        }
      }
    });
  }

  private readonly group: BetterSqlite3.Transaction<(batch: QueuedAppend[]) => void>;
  private queue: QueuedAppend[] = [];

  /**
   * Group commit for `synchronous=FULL`: appends that arrive within one turn of the event loop are
   * committed in a single transaction, so they share one fsync instead of paying one each. The
   * caller's `gate` serializes the flush with every other SQLite write.
   */
  appendGrouped(
    sessionId: string,
    inputs: readonly unknown[],
    ctx: Context,
    gate: (flush: () => Promise<void>) => Promise<void>,
  ): Promise<Entry[]> {
    return new Promise<Entry[]>((resolve, reject) => {
      this.queue.push({ sessionId, inputs, ctx, resolve, reject });
      if (this.queue.length > 1) return;
      setImmediate(() => {
        const flushed = gate(async () => {
          const batch = this.queue;
          this.queue = [];
          for (const q of batch) this.kept.delete(q.sessionId);
          try {
            this.group.immediate(batch);
          } catch (err) {
            for (const q of batch) q.reject(err);
            return;
          }
          for (const q of batch) {
            if (q.error !== undefined) q.reject(q.error);
            else q.resolve(q.result as Entry[]);
          }
        });
        flushed.catch((err: unknown) => {
          for (const q of this.queue.splice(0)) q.reject(err);
        });
      });
    });
  }

  /**
   * Appends all of `inputs` or none. The caller holds the SQLite gate. What the committed append
   * wrote to the session row is kept while this store holds the session's lease.
   */
  append(sessionId: string, inputs: readonly unknown[], ctx: Context): Entry[] {
    return this.keeping(sessionId, () => this.run(sessionId, inputs, ctx));
  }

  /**
   * Rewrites the session row's meta as `patch` makes it from the row (behind the same lease fence as an
   * append), in one synchronous transaction: through Kysely the lock, read and write of
   * `updateSession` cost ~5x as much. The caller holds the SQLite gate. Kept like an append's row.
   */
  update(sessionId: string, patch: (meta: SessionMeta) => SessionMeta): SessionMeta {
    return this.keeping(sessionId, () => this.runUpdate(sessionId, patch));
  }

  /** Runs a write of the session row; keeps the row it committed while this store holds the lease, else forgets it. */
  private keeping<T>(sessionId: string, write: () => T): T {
    this.written = undefined;
    let value: T;
    try {
      value = write();
    } catch (err) {
      this.kept.delete(sessionId);
      throw err;
    }
    const w = this.written as Written | undefined;
    if (w && this.leases.holds(sessionId)) this.kept.set(sessionId, w);
    else this.kept.delete(sessionId);
    return value;
  }

  /** `metas` as read from their rows, those of `lagging` read again with their tail folded in. Same gate rule. */
  folded(metas: readonly SessionMeta[], lagging: readonly string[]): SessionMeta[] {
    return metas.map((m) => {
      if (!lagging.includes(m.id)) return m;
      try {
        return this.readMeta(m.id) ?? m;
      } catch (err) {
        // An entry of the tail that does not read: listed as damaged, as a row that does not read is.
        if (err instanceof ArborError) return { ...m, damaged: err.message };
        throw err;
      }
    });
  }

  /** Drops what is kept of a session's row: another write of this store is about to change it. */
  forget(sessionId: string): void {
    this.kept.delete(sessionId);
  }

  /**
   * Makes a lagging session row exact (tail_seq null) in a transaction of its own, when its lease
   * holder gives the lease back: nobody reads a tail after the run. The caller holds the SQLite gate,
   * or nothing does. Forgets what was kept.
   */
  settle(sessionId: string): void {
    const kept = this.kept.get(sessionId);
    if (kept ? kept.tail !== null : this.tailOf(sessionId) != null) this.settleNow(sessionId);
    else this.kept.delete(sessionId);
  }
}
