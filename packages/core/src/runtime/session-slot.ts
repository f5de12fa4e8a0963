import { hostname } from "node:os";
import { ArborError } from "../errors.js";
import { assertSessionId } from "../model/ids.js";
import type { KeyedLock } from "../store/keyed-lock.js";
import { type SessionLease, sessionBusy, withLease } from "../store/lease.js";
import type { Store } from "../store/store.js";
import type { SessionDriver } from "./runs-api.js";
import type { BusyPolicy } from "./sessions-api.js";

/*
 * A session's slot: the one door every change to a session goes through, runs and operations alike.
 * In this process the runtime's per-session queue orders them (an operation waits behind a run's
 * turn, or is refused at once under `reject`); across processes the store's lease does (taken inside
 * the queue, so a process never waits on itself). The "busy?" check and the queueing happen in one
 * synchronous step, so nothing starts between the answer and the work; the lease is taken before the
 * first read the work depends on, so another process never writes between them either.
 */

export interface SessionSlotDeps {
  store: Store;
  queue: KeyedLock;
  /** What this process runs, as the lease and `session_busy` name it. */
  holderName: string;
  /** The runtime's `busy` option: what an operation that says nothing does. */
  defaultBusy: BusyPolicy;
}

export interface SessionSlot {
  /** Who drives the session now, here or in another process; undefined when idle. */
  busy(sessionId: string): Promise<SessionDriver | undefined>;
  /**
   * Runs `work` in the session's slot holding its lease. Rejects with `invalid_id` or, under
   * `reject` (or a driver in another process), `session_busy` naming the driver, having run nothing.
   */
  exclusive<T>(sessionId: string, busy: BusyPolicy | undefined, work: (lease: SessionLease) => Promise<T>): Promise<T>;
  /**
   * `exclusive` without the lease, for a write the store itself refuses while anyone holds the lease
   * (deleting a session tree checks every lease of the tree in its own transaction).
   */
  queued<T>(sessionId: string, busy: BusyPolicy | undefined, work: () => Promise<T>): Promise<T>;
  /** The `session_busy` error for a driver, for callers that decide themselves whether to wait. */
  busyError(sessionId: string, driver: SessionDriver): ArborError;
}

export function sessionSlot(deps: SessionSlotDeps): SessionSlot {
  const { store, queue, holderName } = deps;

  function busyError(sessionId: string, driver: SessionDriver): ArborError {
    if (driver.where === "elsewhere") return sessionBusy(sessionId, driver.holder);
    return new ArborError(
      "session_busy",
      `Session ${sessionId} is in use by a run or operation of ${holderName} (pid ${process.pid} on ${hostname()}); wait for it to finish or abort it.`,
      { holder: { pid: process.pid, host: hostname(), purpose: holderName } },
    );
  }

  function inSlot<T>(sessionId: string, busy: BusyPolicy | undefined, work: () => Promise<T>): Promise<T> {
    try {
      assertSessionId(sessionId);
    } catch (err) {
      return Promise.reject(err);
    }
    if ((busy ?? deps.defaultBusy) === "reject" && queue.busy(sessionId)) {
      return Promise.reject(busyError(sessionId, { where: "this_runtime" }));
    }
    return queue.run(sessionId, work);
  }

  return {
    busyError,
    async busy(sessionId) {
      assertSessionId(sessionId);
      if (queue.busy(sessionId)) return { where: "this_runtime" };
      const holder = await store.leaseHolder(sessionId);
      // Work queued while the store answered is this runtime's, whoever the store named.
      if (queue.busy(sessionId)) return { where: "this_runtime" };
      return holder ? { where: "elsewhere", holder } : undefined;
    },
    exclusive: (sessionId, busy, work) => inSlot(sessionId, busy, () => withLease(store, sessionId, holderName, work)),
    queued: inSlot,
  };
}
