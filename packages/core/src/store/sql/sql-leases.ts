import type { Kysely } from "kysely";
import { LeaseHeartbeat, type LeaseHolder, newHolder, type SessionLease, sessionBusy } from "../lease.js";
import type { SqlConnection } from "./connect.js";
import { dropLease, liveHolder, readLease, renewLease, takeLease } from "./leases.js";
import type { ArborDatabase, LeasesTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

interface Held {
  holder: LeaseHolder;
  beat: LeaseHeartbeat;
}

/**
 * The leases one SQL store instance holds, with their heartbeats. Writes by the holder skip the
 * lease lookup; every other write looks the lease up under the session's row lock (which taking a
 * lease also takes), so a write from another process either lands before the lease or is refused.
 */
export class SqlLeases {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly conn: SqlConnection,
    private readonly ttlMs: number,
  ) {}

  holds(id: string): boolean {
    const h = this.held.get(id);
    return h !== undefined && !h.beat.lost.aborted;
  }

  async holder(id: string): Promise<LeaseHolder | undefined> {
    const own = this.held.get(id);
    if (own && !own.beat.lost.aborted) return own.holder;
    return liveHolder(await readLease(this.conn.db, id));
  }

  /** Within a write transaction, after the session's row lock: refuses when another process drives it. */
  async checkWritable(trx: Db, id: string): Promise<void> {
    const own = this.held.get(id);
    if (own?.beat.lost.aborted) throw sessionBusy(id, undefined);
    if (own) return;
    const other = liveHolder(await readLease(trx, id));
    if (other) throw sessionBusy(id, other);
  }

  /** The synchronous form for the SQLite append path; `read` looks the lease row up. */
  checkRow(id: string, read: () => Pick<LeasesTable, "holder" | "expires_at" | "token"> | undefined): void {
    const own = this.held.get(id);
    if (own?.beat.lost.aborted) throw sessionBusy(id, undefined);
    if (own) return;
    const other = liveHolder(read());
    if (other) throw sessionBusy(id, other);
  }

  /** Throws `session_busy` when anyone, this store included, drives one of `ids`. */
  async checkIdle(trx: Db, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const own = this.held.get(id);
      const holder = own ? own.holder : liveHolder(await readLease(trx, id));
      if (holder) throw sessionBusy(id, holder);
    }
  }

  async acquire(id: string, purpose: string): Promise<SessionLease> {
    const mine = this.held.get(id);
    if (mine) throw sessionBusy(id, mine.holder);
    const holder = newHolder(purpose);
    const other = await takeLease(this.conn, id, holder, this.ttlMs);
    if (other) throw sessionBusy(id, other);
    const beat = new LeaseHeartbeat(this.ttlMs, () => renewLease(this.conn.db, id, holder.token, this.ttlMs));
    const held: Held = { holder, beat };
    this.held.set(id, held);
    let released = false;
    return {
      sessionId: id,
      holder,
      lost: beat.lost,
      release: async () => {
        if (released) return;
        released = true;
        beat.stop();
        if (this.held.get(id) === held) this.held.delete(id);
        await dropLease(this.conn.db, id, holder.token).catch(() => {
          // Unreachable database: the lease expires by itself.
        });
      },
    };
  }

  /** Gives back every lease (closing the store). */
  async releaseAll(): Promise<void> {
    const all = [...this.held];
    this.held.clear();
    for (const [id, h] of all) {
      h.beat.stop();
      await dropLease(this.conn.db, id, h.holder.token).catch(() => {});
    }
  }
}
