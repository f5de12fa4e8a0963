import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import { HeldLeases, type LeaseHolder, type LeaseOptions, newHolder, type SessionLease, sessionBusy } from "../lease.js";
import { lockHolder, prepareComplete, renewLock, sweepHolderFiles, type TryLock, tryLock, unlock } from "../lock-file.js";
import { SpareLocks } from "../spare-locks.js";
import { WriteBursts } from "./write-burst.js";

/** A write lock is held for one write, or a burst of a few milliseconds: a holder older than this died mid-write. */
const WRITE_LOCK_TTL_MS = 10_000;
/** How long a write waits for another process's write to finish before giving up. */
const WRITE_WAIT_MS = 10_000;

/**
 * The file store's cross-process coordination, in `<store>/leases/`: a lease file per session names
 * the process driving it, and a short write lock per session makes a write by any other process
 * (check the lease, re-read what changed, write) one step. File names are hashes of the session id,
 * so the longest ids still fit a file name with the lock files' suffixes.
 */
export class FileLeases {
  private readonly held: HeldLeases;
  /** Write locks kept for a burst of writes (see write-burst.ts). */
  private readonly bursts: WriteBursts;
  /** Lease files given back, kept to make the next leases of (see spare-locks.ts). */
  private readonly spares: SpareLocks;

  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
  ) {
    this.held = new HeldLeases(ttlMs);
    this.spares = new SpareLocks(dir);
    this.bursts = new WriteBursts({ purpose: "a write", ttlMs: WRITE_LOCK_TTL_MS, waitMs: WRITE_WAIT_MS });
  }

  init(): void {
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (err) {
      throw new ArborError("io_error", `Cannot create the lease directory ${this.dir}: ${(err as Error).message}`);
    }
    // Write locks are links to a holder file per process (see LinkedHolder), and lease files given
    // back are kept as spares (see SpareLocks): those of dead processes go.
    sweepHolderFiles(this.dir, WRITE_LOCK_TTL_MS);
  }

  private path(id: string, kind: "lease" | "write"): string {
    return join(this.dir, `${createHash("sha256").update(id).digest("hex").slice(0, 40)}.${kind}`);
  }

  /** True while this store holds the session's lease. */
  holds(id: string): boolean {
    return this.held.live(id) !== undefined;
  }

  /** The token of this store's live lease on the session, undefined when it holds none (or lost it). */
  token(id: string): string | undefined {
    return this.held.live(id)?.token;
  }

  /** The live holder of the session's lease, this store included. */
  holder(id: string): LeaseHolder | undefined {
    return this.held.live(id) ?? lockHolder(this.path(id, "lease"), this.ttlMs);
  }

  /**
   * Throws `session_busy` when another process holds the session (or this store lost its lease).
   * `checkedInBurst`: the lease file was read since this store took the write lock it still holds, and
   * nobody can take a lease without that lock, so only this store's own lease is looked at.
   */
  checkWritable(id: string, checkedInBurst = false): void {
    this.held.checkNotLost(id);
    if (this.held.has(id) || checkedInBurst) return;
    const other = lockHolder(this.path(id, "lease"), this.ttlMs);
    if (other) throw sessionBusy(id, other);
  }

  /**
   * Takes the session's lease (call with the write lock held, so no other process writes meanwhile,
   * and one acquire of the session at a time). The lease file is a spare of a lease given back when
   * there is one, else a new file written off the event loop first (see prepareComplete); it is linked
   * into place, and renamed back to a spare on release. No lease file is synced, in any durability:
   * a lease names a process, and does not outlive it.
   */
  async acquire(id: string, purpose: string, options: LeaseOptions | undefined, onRelease: () => void): Promise<SessionLease> {
    if (this.held.has(id)) throw sessionBusy(id, this.held.live(id));
    const holder = newHolder(purpose, options);
    const path = this.path(id, "lease");
    const got = this.spares.tryLock(path, holder, this.ttlMs) ?? (await this.lockNew(path, holder));
    if (!got.ok) throw sessionBusy(id, got.holder);
    return this.held.add(
      id,
      holder,
      async () => renewLock(path, holder.token),
      () => {
        onRelease();
        this.spares.unlock(path, holder.token);
      },
    );
  }

  /** Takes the lease with a new file (no spare at hand). */
  private async lockNew(path: string, holder: LeaseHolder): Promise<TryLock> {
    const made = await prepareComplete(path, JSON.stringify(holder));
    try {
      return tryLock(path, holder, this.ttlMs, made.create);
    } finally {
      made.done();
    }
  }

  /**
   * Runs `work` holding the session's write lock, waiting for another process's write to end. The lock
   * may be kept from a recent write and kept a little after this one (a burst): `work` gets the
   * burst's generation, the same for every write while the lock was held throughout, and `ended`
   * runs, lock still held, when the burst gives the lock back.
   */
  withWriteLock<T>(id: string, work: (burst: number) => T | Promise<T>, ended: () => void = () => {}): Promise<T> {
    return this.bursts.run(id, this.path(id, "write"), ended, work, (holder) => sessionBusy(id, holder));
  }

  /** True while this store holds the session's write lock (within a burst). */
  holdsWriteLock(id: string): boolean {
    return this.bursts.holds(id);
  }

  /** The generation of the burst in which this store holds the session's write lock now, if any. */
  writeBurst(id: string): number | undefined {
    return this.bursts.generation(id);
  }

  /** Gives back every write lock kept for a burst (closing the store). */
  endBursts(): void {
    this.bursts.endAll();
  }

  /** Stops every heartbeat, gives back every lease this store holds and removes the spares (closing the store). */
  async releaseAll(): Promise<void> {
    this.spares.close();
    await this.held.releaseAll((id, token) => unlock(this.path(id, "lease"), token));
  }
}
