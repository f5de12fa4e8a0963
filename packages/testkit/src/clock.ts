import { abortError } from "./abort.js";

/** Time as the scripted model and fake server see it: injectable, so delay tests advance time instead of sleeping. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with an AbortError as soon as `signal` fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Wall-clock time and real timers (the default). */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortError(signal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** A clock that moves only when told: `advance(ms)` wakes the sleepers that are due, in deadline order. */
export interface ManualClock extends Clock {
  /** Moves time forward, waking due sleepers one by one and letting each one's continuation run before the next. */
  advance(ms: number): Promise<void>;
  /** How many sleeps are waiting. */
  readonly pending: number;
  /** Resolves once at least one sleep is waiting: lets a test wait for the code under test to reach its delay. */
  whenSleeping(): Promise<void>;
}

interface Sleeper {
  deadline: number;
  seq: number;
  wake: () => void;
}

/** Lets promise continuations and stream reads queued by a wake-up run; a macrotask turn, not a timed wait. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export function manualClock(start = 0): ManualClock {
  let now = start;
  let seq = 0;
  const sleepers = new Set<Sleeper>();
  let watchers: Array<() => void> = [];

  const due = (limit: number): Sleeper | undefined => {
    let first: Sleeper | undefined;
    for (const s of sleepers) {
      if (
        s.deadline <= limit &&
        (!first || s.deadline < first.deadline || (s.deadline === first.deadline && s.seq < first.seq))
      ) {
        first = s;
      }
    }
    return first;
  };

  return {
    now: () => now,
    get pending() {
      return sleepers.size;
    },
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortError(signal));
          return;
        }
        const onAbort = () => {
          sleepers.delete(sleeper);
          reject(abortError(signal));
        };
        const sleeper: Sleeper = {
          deadline: now + Math.max(0, ms),
          seq: seq++,
          wake: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        sleepers.add(sleeper);
        signal?.addEventListener("abort", onAbort, { once: true });
        const waiting = watchers;
        watchers = [];
        for (const notify of waiting) notify();
      });
    },
    async advance(ms) {
      const target = now + Math.max(0, ms);
      for (let next = due(target); next; next = due(target)) {
        sleepers.delete(next);
        now = Math.max(now, next.deadline);
        next.wake();
        await settle();
      }
      now = target;
      await settle();
    },
    whenSleeping() {
      if (sleepers.size > 0) return Promise.resolve();
      return new Promise<void>((resolve) => watchers.push(resolve));
    },
  };
}
