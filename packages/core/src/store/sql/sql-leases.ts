import type { Kysely } from "kysely";
import { HeldLeases, type LeaseHolder, newHolder, type SessionLease, sessionBusy } from "../lease.js";
import type { SqlConnection } from "./connect.js";
import { dropLease, liveHolder, readLease, renewLease, takeLease } from "./leases.js";
import type { ArborDatabase, LeasesTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/**
 * The leases one SQL store instance holds. Writes by the holder skip the lease lookup; every other
 * write looks the lease up under the session's row lock (which taking a lease also takes), so a
 * write from another process either lands before the lease or is refused.
 */
export class SqlLeases {
  private readonly held: HeldLeases;

  constructor(
    private readonly conn: SqlConnection,
    private readonly ttlMs: number,
  ) {
    this.held = new HeldLeases(ttlMs);
  }

  /** True while this store holds the session's lease (and has not lost it). */
  holds(id: string): boolean {
    return this.held.live(id) !== undefined;
  }

  async holder(id: string): Promise<LeaseHolder | undefined> {
    return this.held.live(id) ?? liveHolder(await readLease(this.conn.db, id));
  }

  /** Within a write transaction, after the session's row lock: refuses when another process drives it. */
  async checkWritable(trx: Db, id: string): Promise<void> {
    this.held.checkNotLost(id);
    if (this.held.has(id)) return;
    const other = liveHolder(await readLease(trx, id));
    if (other) throw sessionBusy(id, other);
  }

  /** The synchronous form for the SQLite append path; `read` looks the lease row up. */
  checkRow(id: string, read: () => Pick<LeasesTable, "holder" | "expires_at" | "token"> | undefined): void {
    this.held.checkNotLost(id);
    if (this.held.has(id)) return;
    const other = liveHolder(read());
    if (other) throw sessionBusy(id, other);
  }

  /** Throws `session_busy` when anyone, this store included, drives one of `ids`. */
  async checkIdle(trx: Db, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const holder = this.held.live(id) ?? liveHolder(await readLease(trx, id));
      if (holder) throw sessionBusy(id, holder);
    }
  }

  async acquire(id: string, purpose: string): Promise<SessionLease> {
    if (this.held.has(id)) throw sessionBusy(id, this.held.live(id));
    const holder = newHolder(purpose);
    const other = await takeLease(this.conn, id, holder, this.ttlMs);
    if (other) throw sessionBusy(id, other);
    const giveBack = () =>
      dropLease(this.conn.db, id, holder.token).catch(() => {
        // Unreachable database: the lease expires by itself.
      });
    return this.held.add(id, holder, () => renewLease(this.conn.db, id, holder.token, this.ttlMs), giveBack);
  }

  /** Gives back every lease (closing the store). */
  releaseAll(): Promise<void> {
    return this.held.releaseAll((id, token) => dropLease(this.conn.db, id, token).catch(() => {}));
  }
}
