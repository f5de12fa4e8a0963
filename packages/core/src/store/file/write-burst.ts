import { readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ArborError } from "../../errors.js";
import { type LeaseHolder, newHolder } from "../lease.js";
import { LinkedHolder, tryLock, unlock } from "../lock-file.js";

/**
 * A session's cross-process write lock, kept for a short burst of writes instead of being taken and
 * given back around each one: creating and unlinking the lock file cost more than the append it
 * guards, and a process writing a session it does not lease usually writes it several times in a row.
 *
 * The lock is given back IDLE_MS after its last use, and never kept past MAX_MS after it was taken:
 * a use that starts later gives it back and takes it afresh. Another process therefore waits at
 * most a few milliseconds longer than for a single write, and only while the lock is used.
 *
 * Fairness: a process that found the lock taken says so in `<lock>.want` (rewritten at every try,
 * so it goes stale when the waiter is gone). Whoever is about to take the lock afresh and finds a
 * fresh `.want` of another process, right after a burst it used throughout, first leaves it free for a
 * pause, so a process writing in a tight loop does not starve a waiter by taking the lock again right
 * after each burst. (Yielding at every take, or for longer, left the lock idle under contention:
 * waiters poll, and are not always scheduled within the pause.)
 *
 * Crash reasoning: a burst changes when the lock file is removed, not what is on disk before a write
 * returns. Each write's bytes are in the OS (or on disk) before it returns, exactly as with a lock per
 * write. If the process dies with the lock held, the file names a dead pid and is broken at once on
 * this host (after the lock's time to live elsewhere), as it already was for a death mid-write. What a
 * burst defers is only cache upkeep: index lines (entries.idx is checked against entries.jsonl on
 * load and completed from it) are written when the burst ends. While the burst lasts nobody else can
 * write the session (writers need this lock; taking a lease needs it too), so what this process read
 * of the session at the burst's start is still what is on disk: the per-write re-checks are skipped.
 * The lock is far younger than its time to live (MAX_MS against seconds) whenever it is used, so it
 * cannot have been broken by another process meanwhile; giving it back still checks that it is ours.
 */

/** A burst ends this long after its last use. */
const IDLE_MS = 1;
/** A burst is not extended past this age: the next use gives the lock back and takes it again. */
const MAX_MS = 2;
/** A `.want` not rewritten for this long was left by a waiter that is gone or gave up. */
const WANT_FRESH_MS = 250;
/** A waiter polls at least this often, so it is likely to find the lock in the pause left free for it. */
const MAX_PAUSE_MS = 4;

interface Burst {
  path: string;
  holder: LeaseHolder;
  since: number;
  /** Uses running now: the lock is not given back under them. */
  using: number;
  timer: NodeJS.Timeout | null;
  /** Told as the burst ends, before the lock file is removed. */
  ended: () => void;
  /** Distinguishes bursts: a session checked in this burst needs no re-check while it lasts. */
  generation: number;
}

export interface BurstOptions {
  purpose: string;
  ttlMs: number;
  waitMs: number;
}

/** The write locks one store keeps for bursts, per session. Owned by a store instance. */
export class WriteBursts {
  private readonly held = new Map<string, Burst>();
  /**
   * The holder every lock of this instance in a folder is a link to: a lock taken per write burst
   * would otherwise be a new file each time (see LinkedHolder). One holder serves all takes: the
   * `held` map already keeps this instance from taking a key it holds.
   */
  private readonly holders = new Map<string, LinkedHolder>();
  private generations = 0;

  constructor(private readonly opts: BurstOptions) {}

  /** True while this store holds `key`'s write lock. */
  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** The generation of the burst holding `key`'s write lock now, if any. */
  generation(key: string): number | undefined {
    return this.held.get(key)?.generation;
  }

  /**
   * Runs `work` holding the write lock at `path`, taken now or still held from a recent use. `work`
   * gets the burst's generation; `ended` runs (with the lock still held) when the burst ends.
   */
  async run<T>(
    key: string,
    path: string,
    ended: () => void,
    work: (generation: number) => T | Promise<T>,
    /** The error when the lock stays taken by another process for the whole wait. */
    timeout: (holder: LeaseHolder | undefined) => ArborError,
  ): Promise<T> {
    let burst = this.held.get(key);
    // A burst used past its length: this process writes without pause and must let a waiter in.
    const hogged = burst !== undefined && burst.using === 0 && Date.now() - burst.since > MAX_MS;
    if (burst && hogged) {
      this.end(key, burst);
      burst = undefined;
    }
    if (!burst) burst = await this.take(key, path, ended, timeout, hogged);
    if (burst.timer) clearTimeout(burst.timer);
    burst.timer = null;
    burst.using++;
    try {
      return await work(burst.generation);
    } finally {
      burst.using--;
      if (burst.using === 0 && this.held.get(key) === burst) this.schedule(key, burst);
    }
  }

  /** Ends every burst and removes the holder files (closing the store). */
  endAll(): void {
    for (const [key, burst] of [...this.held]) this.end(key, burst);
    for (const holder of this.holders.values()) holder.close();
  }

  private holderIn(path: string): LinkedHolder {
    const dir = dirname(path);
    let holder = this.holders.get(dir);
    if (holder === undefined) {
      holder = new LinkedHolder(dir, newHolder(this.opts.purpose));
      this.holders.set(dir, holder);
    }
    return holder;
  }

  private schedule(key: string, burst: Burst): void {
    const left = burst.since + MAX_MS - Date.now();
    if (left <= 0) {
      this.end(key, burst);
      return;
    }
    // Not unref'd: a process about to exit gives its locks back first (a few milliseconds at most).
    burst.timer = setTimeout(
      () => {
        if (burst.using === 0 && this.held.get(key) === burst) this.end(key, burst);
      },
      Math.min(IDLE_MS, left),
    );
  }

  private end(key: string, burst: Burst): void {
    if (burst.timer) clearTimeout(burst.timer);
    burst.timer = null;
    this.held.delete(key);
    try {
      burst.ended();
    } finally {
      unlock(burst.path, burst.holder.token);
    }
  }

  private async take(
    key: string,
    path: string,
    ended: () => void,
    timeout: (holder: LeaseHolder | undefined) => ArborError,
    /** Taken again right after a burst used throughout: a waiter noted in `.want` goes first. */
    hogged: boolean,
  ): Promise<Burst> {
    const linked = this.holderIn(path);
    const holder = linked.holder;
    const want = `${path}.want`;
    const deadline = Date.now() + this.opts.waitMs;
    let announced = false;
    let yielded = false;
    let last: LeaseHolder | undefined;
    for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      // Someone else took it meanwhile (another call of this store while we slept).
      const mine = this.held.get(key);
      if (mine) return mine;
      // Another process waits: the lock is left free for one pause first, so it can take it.
      if (hogged && !yielded && wantedByOther(want, holder.token)) yielded = true;
      else {
        const got = tryLock(path, holder, this.opts.ttlMs, linked.create);
        if (got.ok) {
          if (announced) removeWant(want, holder.token);
          const burst: Burst = { path, holder, since: Date.now(), using: 0, timer: null, ended, generation: ++this.generations };
          this.held.set(key, burst);
          return burst;
        }
        last = got.holder;
        announced = announceWant(want, holder.token) || announced;
      }
      if (Date.now() > deadline) {
        if (announced) removeWant(want, holder.token);
        throw timeout(last);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** True when a waiter other than `token` asked for the lock recently. */
function wantedByOther(want: string, token: string): boolean {
  const st = statSync(want, { throwIfNoEntry: false });
  if (!st || Date.now() - st.mtimeMs > WANT_FRESH_MS) return false;
  try {
    return readFileSync(want, "utf8") !== token;
  } catch {
    return false;
  }
}

function announceWant(want: string, token: string): boolean {
  try {
    writeFileSync(want, token);
    return true;
  } catch {
    // Without the note this waiter is only not preferred; it still polls until its deadline.
    return false;
  }
}

function removeWant(want: string, token: string): void {
  try {
    if (readFileSync(want, "utf8") === token) unlinkSync(want);
  } catch {
    // Gone already, or another waiter's note now: theirs to remove.
  }
}
