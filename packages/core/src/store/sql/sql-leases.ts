import type { Kysely } from "kysely";
import { HeldLeases, type LeaseHolder, type LeaseOptions, newHolder, type SessionLease, sessionBusy } from "../lease.js";
import type { SqlConnection } from "./connect.js";
import { dropLease, liveHolder, readLease, renewLease, takeLease } from "./leases.js";
import { SqliteLeaseRows } from "./sqlite-leases.js";
import type { ArborDatabase, LeasesTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/**
 * The leases one SQL store instance holds. Every write that changes a session reads the session's
 * lease row under the session's row lock (which taking a lease also takes): a write from another
 * process lands before the lease or is refused, and a holder's write is fenced by its token, so a
 * holder whose lease was taken over (it expired in the store's view) cannot write after the taker.
 */
export class SqlLeases {
  private readonly held: HeldLeases;
  /** SQLite's take and give-back on prepared statements (see SqliteLeaseRows). */
  private readonly sqliteRows: SqliteLeaseRows | undefined;

  constructor(
    private readonly conn: SqlConnection,
    private readonly ttlMs: number,
    /** A lease this store held was given back. */
    private readonly ended: (id: string) => void = () => {},
    /**
     * Runs while the lease is still held, before it is given back: a holder's last write of the
     * session (SQLite: the exact session row, see sqlite-session-tail.ts). Its failure is ignored.
     */
    private readonly settle: (id: string) => Promise<void> = async () => {},
  ) {
    this.held = new HeldLeases(ttlMs);
    const sqlite = conn.sqlite;
    this.sqliteRows = sqlite ? new SqliteLeaseRows({ ...conn, sqlite }) : undefined;
  }

  private take(id: string, holder: LeaseHolder): Promise<LeaseHolder | undefined> {
    return this.sqliteRows ? this.sqliteRows.take(id, holder, this.ttlMs) : takeLease(this.conn, id, holder, this.ttlMs);
  }

  private drop(id: string, token: string): Promise<void> {
    return this.sqliteRows ? this.sqliteRows.drop(id, token) : dropLease(this.conn.db, id, token);
  }

  /** True while this store holds the session's lease (and has not lost it). */
  holds(id: string): boolean {
    return this.held.live(id) !== undefined;
  }

  async holder(id: string): Promise<LeaseHolder | undefined> {
    return this.held.live(id) ?? liveHolder(await readLease(this.conn.db, id));
  }

  /**
   * Within a write transaction: `row` is the session's lease row as read under the session's row
   * lock. Refuses when another process drives the session, or when this store's lease is no longer
   * the stored one.
   */
  checkLeaseRow(id: string, row: Pick<LeasesTable, "holder" | "expires_at" | "token"> | undefined): void {
    if (this.held.fence(id, row?.token, () => liveHolder(row))) return;
    const other = liveHolder(row);
    if (other) throw sessionBusy(id, other);
  }

  /** The SQLite append path's form: `read` looks the lease row up in the write's transaction. */
  checkRow(id: string, read: () => Pick<LeasesTable, "holder" | "expires_at" | "token"> | undefined): void {
    this.checkLeaseRow(id, read());
  }

  /** Throws `session_busy` when anyone, this store included, drives one of `ids`. */
  async checkIdle(trx: Db, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const holder = this.held.live(id) ?? liveHolder(await readLease(trx, id));
      if (holder) throw sessionBusy(id, holder);
    }
  }

  async acquire(id: string, purpose: string, options?: LeaseOptions): Promise<SessionLease> {
    if (this.held.has(id)) throw sessionBusy(id, this.held.live(id));
    const holder = newHolder(purpose, options);
    // Before the round trip that stores the expiry: the holder's view of its lease never outlasts the store's.
    const takenAt = Date.now();
    const other = await this.take(id, holder);
    if (other) throw sessionBusy(id, other);
    const giveBack = () => {
      this.ended(id);
      return this.drop(id, holder.token).catch(() => {
        // Unreachable database: the lease expires by itself.
      });
    };
    const lease = this.held.add(id, holder, () => renewLease(this.conn.db, id, holder.token, this.ttlMs), giveBack, takenAt);
    return {
      ...lease,
      release: async () => {
        await this.settle(id).catch(() => {});
        await lease.release();
      },
    };
  }

  /** Gives back every lease (closing the store). */
  async releaseAll(): Promise<void> {
    for (const id of this.held.ids()) await this.settle(id).catch(() => {});
    return this.held.releaseAll((id, token) => this.drop(id, token).catch(() => {}));
  }
}
