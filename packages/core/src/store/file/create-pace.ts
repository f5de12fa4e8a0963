/**
 * Where a file store makes a new session's files: on the event loop, or through libuv's thread pool.
 * Pure policy over the durations the store measures.
 *
 * On the event loop a new file costs ~20 µs on a healthy disk, so a session's directory, its three
 * files and the rename into place cost ~0.1 ms. Through the thread pool each of those eleven calls
 * costs 60–80 µs of CPU on a 2-core VM (the hand-off to a worker and back), ~0.8 ms a session, paid by
 * every sub-trace and every run on a new session. But on ext4 a new inode is found by scanning past the
 * inodes freed lately, and on a busy disk where many files were deleted a create then takes 0.5–1.5 ms:
 * made on the event loop, a session's files stalled every other run's stream by milliseconds.
 *
 * So creations run on the loop while they are quick. Two in a row that took longer than `slowMs`
 * send the next ones to the thread pool for `holdMs`, after which the loop is tried again. One alone
 * does not: a garbage collection or the process losing its core can stretch any creation once.
 */
export interface CreatePaceSettings {
  /**
   * Two creations in a row on the loop slower than this (ms) move the next ones off it. Default 1:
   * about ten times a creation on a healthy disk, and below the 1.5–2 ms of one on a busy ext4.
   */
  slowMs: number;
  /** For how long (ms) creations stay off the loop after two slow ones. Default 60,000. */
  holdMs: number;
}

export const DEFAULT_CREATE_PACE: CreatePaceSettings = { slowMs: 1, holdMs: 60_000 };

export type CreateWhere = "loop" | "pool";

export class CreatePace {
  private offLoopUntil = Number.NEGATIVE_INFINITY;
  private slowInARow = 0;

  constructor(private readonly settings: CreatePaceSettings = DEFAULT_CREATE_PACE) {}

  /** Where the next creation runs, at time `now` (ms, monotonic). */
  where(now: number): CreateWhere {
    return now < this.offLoopUntil ? "pool" : "loop";
  }

  /** A creation on the loop took `ms`, ending at `now`. */
  tookOnLoop(ms: number, now: number): void {
    this.slowInARow = ms > this.settings.slowMs ? this.slowInARow + 1 : 0;
    if (this.slowInARow < 2) return;
    this.slowInARow = 0;
    this.offLoopUntil = now + this.settings.holdMs;
  }
}
