import { ArborError } from "../../errors.js";
import { assertSessionId } from "../../model/ids.js";
import { KeyedLock } from "../keyed-lock.js";
import { type LeaseOptions, type SessionLease, sessionBusy } from "../lease.js";
import type { FileLeases } from "./file-leases.js";
import type { OpenSession, OpenSessions } from "./open-sessions.js";
import type { SessionDirs } from "./session-dir.js";

/** What a write did: its value, and the fsync to wait for (durability "fsync") if any. */
export type WriteOutcome<T> = { value: T; synced: Promise<void> | null };

/**
 * How the file store writes one session: one write at a time in this process (the keyed lock), and
 * across processes either as the lease holder, which no other process may interrupt, or under the
 * session's short write lock after catching up with what other processes wrote.
 */
export class SessionWrites {
  readonly lock = new KeyedLock();

  constructor(
    private readonly leases: FileLeases,
    private readonly sessions: OpenSessions,
    private readonly dirs: SessionDirs,
    private readonly load: (id: string) => Promise<OpenSession>,
    /** Called as a lease of this store ends, before others may write the session. */
    private readonly leaseEnded: (id: string) => void,
  ) {}

  /**
   * A write to one session. The lease holder writes straight away (no other process may write the
   * session); anyone else takes the session's write lock, is refused while another process holds the
   * lease, and first catches up with what other processes wrote.
   */
  locked<T>(id: string, work: (s: OpenSession) => WriteOutcome<T>): Promise<T> {
    let outcome: WriteOutcome<T>;
    try {
      assertSessionId(id);
      // The lease holder's write to a loaded session, with nothing of ours queued on it, runs at once: being
      // synchronous, nothing can come between, which is all the keyed lock would ensure. It is not an async
      // function, so such a write returns without the turns of the microtask queue an await would add.
      const ready = this.lock.busy(id) || !this.leases.holds(id) ? undefined : this.sessions.cache.get(id);
      if (!ready) return this.lockedSlow(id, work);
      outcome = work(this.sessions.touch(ready));
    } catch (err) {
      return Promise.reject(err);
    }
    return outcome.synced ? this.synced(id, outcome) : Promise.resolve(outcome.value);
  }

  /** A write that waits for the keyed lock (and, unless this store leases the session, the write lock). */
  private async lockedSlow<T>(id: string, work: (s: OpenSession) => WriteOutcome<T>): Promise<T> {
    return this.synced(
      id,
      await this.lock.run(id, async () => {
        // Within a burst of our write lock, the lease was checked when the burst began; nobody can take it meanwhile.
        if (!this.leases.holdsWriteLock(id)) this.leases.checkWritable(id);
        if (this.leases.holds(id)) return work(await this.load(id));
        return this.writeLocked(id, async (burst) => {
          const cached = this.sessions.cache.get(id);
          // Checked in this burst already: nobody else has written the session (or its lease) since.
          if (cached?.burst !== burst) {
            this.leases.checkWritable(id);
            this.dropIfStale(id);
            // Kept, so it matches the disk: marked checked now, the load below takes it without checking it again.
            if (this.sessions.cache.get(id) === cached && cached) cached.burst = burst;
          } else this.leases.checkWritable(id, true);
          const s = await this.load(id);
          s.burst = burst;
          return work(s);
        });
      }),
    );
  }

  /** The write's value once its fsync (if any) is done. */
  private async synced<T>(id: string, { value, synced }: WriteOutcome<T>): Promise<T> {
    // Waiting for fsync outside the lock lets later appends join the same group commit.
    if (synced) {
      try {
        await synced;
      } catch (err) {
        throw new ArborError("io_error", `fsync of session ${id} failed: ${(err as Error).message}`);
      }
    }
    return value;
  }

  acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease> {
    return this.lock.run(sessionId, () =>
      this.writeLocked(sessionId, async () => {
        const lease = await this.leases.acquire(sessionId, purpose, options, () => {
          // The derived meta goes to disk while the lease still keeps other writers out.
          const s = this.sessions.cache.get(sessionId);
          if (s?.dirty) this.sessions.writeMeta(s);
          this.leaseEnded(sessionId);
        });
        // What other processes wrote before the lease was taken is read afresh.
        this.dropIfStale(sessionId);
        return lease;
      }),
    );
  }

  /** Deletes one session's directory unless someone drives it; `forget` drops what else is kept of it. */
  remove(id: string, forget: () => void): Promise<void> {
    return this.lock.run(id, () =>
      this.writeLocked(id, () => {
        const holder = this.leases.holder(id);
        if (holder) throw sessionBusy(id, holder);
        const s = this.sessions.cache.get(id);
        if (s) this.sessions.drop(s);
        this.dirs.remove(id);
        forget();
      }),
    );
  }

  /** Under the session's write lock, kept for a burst; its end writes what the burst indexed. */
  private writeLocked<T>(id: string, work: (burst: number) => T | Promise<T>): Promise<T> {
    // Another process may write the index once the lock is given back: what this burst indexed goes now.
    return this.leases.withWriteLock(id, work, () => this.flushIndexOf(id));
  }

  /**
   * True while the loaded session cannot differ from the disk: this store leases it, or checked it
   * against the disk within the write lock's current burst. Holding the lock, or a write of ours
   * waiting for it, is not enough: the copy may predate another process's append, and a read (ours
   * included, before our write has looked) must see what that process acknowledged. A write under
   * the lock re-reads a stale copy itself before using it.
   */
  settled(id: string): boolean {
    return this.leases.holds(id) || this.checkedInBurst(id);
  }

  /**
   * True while the loaded session was checked against the disk in the write-lock burst this store
   * still holds: no other process can have written it since.
   */
  checkedInBurst(id: string): boolean {
    const burst = this.leases.writeBurst(id);
    return burst !== undefined && this.sessions.cache.get(id)?.burst === burst;
  }

  private flushIndexOf(id: string): void {
    const s = this.sessions.cache.get(id);
    if (s) this.sessions.flushIndex(s);
  }

  private dropIfStale(id: string): void {
    const cached = this.sessions.cache.get(id);
    if (cached && !this.sessions.isFresh(cached)) this.sessions.drop(cached);
  }
}
