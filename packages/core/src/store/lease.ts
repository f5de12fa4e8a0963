import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { z } from "zod";
import { ArborError } from "../errors.js";

/** Who drives a session: enough for a user to find the process, and a token only its lease knows. */
export const LeaseHolderSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** What the holder runs, e.g. `arbor serve` or `arbor run`. */
  purpose: z.string(),
  /**
   * The key of the queued request (a cluster's chat) the run holding the lease was started for:
   * whoever finds the lease expired knows that request's worker died holding it, and can give the
   * request back to its queue at once instead of waiting for the worker's heartbeat to fall silent
   * (the cluster's sweep matches it in SQL: `ClusterQueues.reclaimChatsOfExpiredLeases`).
   */
  request: z.string().optional(),
  /** When the lease was taken (ISO time). */
  since: z.string(),
  token: z.string(),
  /**
   * Which process had the pid (see `PROCESS_STAMP`): a pid reused after the holder died, by the
   * restarted server itself in a container, is not the holder. Absent in leases of older versions.
   */
  process: z.string().optional(),
});
export type LeaseHolder = z.infer<typeof LeaseHolderSchema>;

/** Who drives a session's run: a runtime in this process, or the holder of its lease elsewhere. */
export type SessionDriver = { where: "this_runtime" } | { where: "elsewhere"; holder: LeaseHolder };

/**
 * A store's promise that one process, and within it one holder, drives a session: other processes'
 * writes to the session are refused with `session_busy` until it is released. A holder that dies
 * loses it at once on the same host (its pid is gone) and after `ttlMs` without a heartbeat elsewhere.
 */
export interface SessionLease {
  readonly sessionId: string;
  readonly holder: LeaseHolder;
  /** Aborts when the lease was lost (taken over after the heartbeat stalled); writes then fail. */
  readonly lost: AbortSignal;
  /** Gives the session back; harmless to call twice. */
  release(): Promise<void>;
}

/**
 * How long a lease lives without a heartbeat (it is renewed every third of it). A holder on this host
 * is known dead at once by its pid; one on another machine (an `arbor run` on a shared PostgreSQL, a
 * file store on a network disk) only when this runs out, so it bounds how soon its run is taken over:
 * 6 s, with a cluster's sweep and queue on top, lands within 10 s. A holder whose heartbeat stalls
 * for two of its thirds (a 4 s pause of its event loop or its database) loses the lease.
 */
export const DEFAULT_LEASE_TTL_MS = 6_000;

/** This machine's name, read once: it names lease holders and decides whose pid can be checked. */
const HOST = hostname();

/** The boot and start time of a process as Linux's /proc tells them, or undefined where it cannot. */
function procStamp(proc: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${proc}/stat`, "utf8");
    // Field 22, start time in ticks since boot, counted after the command name, which may hold spaces.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return start ? `${boot}:${start}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether /proc numbers processes as `process.pid` does: not so in a pid namespace that kept its
 * parent's /proc, where another process's stamp cannot be read by its pid.
 */
const PROC_MATCHES = (() => {
  try {
    return readFileSync("/proc/self/stat", "utf8").startsWith(`${process.pid} `);
  } catch {
    return false;
  }
})();

/**
 * This process, told apart from any other that has or had its pid on this host: its boot and start
 * time where /proc tells them, else a value of its own.
 */
const PROCESS_STAMP = procStamp("self") ?? randomUUID();

/** What a lease is taken for beyond its purpose. */
export interface LeaseOptions {
  /** The queued request the run was started for (see `LeaseHolder.request`). */
  request?: string;
}

export function newHolder(purpose: string, options: LeaseOptions = {}): LeaseHolder {
  return {
    pid: process.pid,
    host: HOST,
    purpose,
    ...(options.request === undefined ? {} : { request: options.request }),
    since: new Date().toISOString(),
    token: randomUUID(),
    process: PROCESS_STAMP,
  };
}

/**
 * True while the holder's process still exists; only answerable on its own host. A pid now used
 * by another process (this one included: a server restarted in a container gets its old pid) is
 * the holder's only if its stamp matches, where the stamp can be read.
 */
function processAlive(holder: LeaseHolder): boolean {
  if (holder.pid === process.pid) return holder.process === undefined || holder.process === PROCESS_STAMP;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (holder.process === undefined || !PROC_MATCHES) return true;
  const now = procStamp(String(holder.pid));
  return now === undefined || now === holder.process;
}

/** Whether the holder runs on this host, where its process can be checked by its pid. */
export function onThisHost(holder: LeaseHolder): boolean {
  return holder.host === HOST;
}

/**
 * Whether a recorded holder still holds its lease: not past its expiry (ms since the epoch, moved on
 * by each heartbeat), and on this host its process is alive.
 */
export function holderAlive(holder: LeaseHolder, expiresAt: number, now = Date.now()): boolean {
  if (now > expiresAt) return false;
  return holder.host !== HOST || processAlive(holder);
}

/** A holder as stored (JSON), or undefined when it is not one. */
export function parseHolder(raw: string): LeaseHolder | undefined {
  try {
    const r = LeaseHolderSchema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

export function describeHolder(h: LeaseHolder): string {
  return `${h.purpose} (pid ${h.pid} on ${h.host}, since ${h.since})`;
}

export function sessionBusy(sessionId: string, holder: LeaseHolder | undefined): ArborError {
  const who = holder ? describeHolder(holder) : "another process";
  return new ArborError(
    "session_busy",
    `Session ${sessionId} is in use by ${who}; wait for it to finish or stop that process (a lease whose holder died is taken over).`,
    holder ? { holder: { pid: holder.pid, host: holder.host, purpose: holder.purpose, since: holder.since } } : undefined,
  );
}

/** Runs `work` holding the session's lease, released however it ends. */
export async function withLease<T>(
  store: { acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease> },
  sessionId: string,
  purpose: string,
  work: (lease: SessionLease) => Promise<T>,
  options?: LeaseOptions,
): Promise<T> {
  const lease = await store.acquireLease(sessionId, purpose, options);
  try {
    return await work(lease);
  } finally {
    await lease.release();
  }
}

/**
 * Renews a lease every third of its life with `renew`; when renewal finds the lease gone, `lost`
 * fires. It fires too when renewals have failed (an error, or no answer: the database cut off) for
 * two thirds of the lease's life: the store may soon count the lease expired and let another
 * process take the session, so a holder that cannot renew stops before that (its writes are fenced
 * by the stored token as well: see `HeldLeases.fence`). A late renewal that succeeds (the process stalled) keeps the lease.
 * The timer does not keep the process alive.
 */
export class LeaseHeartbeat {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** When the last renewal that succeeded was sent (or the lease was taken). */
  private renewedAt: number;
  /** A renewal is on its way: sent and not answered, or asked for by a write and sent at the next microtask. */
  private renewing = false;
  private stopped = false;
  private readonly givesUpAfter: number;
  private readonly renewEveryMs: number;
  private readonly renew: () => Promise<boolean>;

  /**
   * `takenAt`: when the lease's expiry was computed (before the round trip that stored it), so a slow
   * answer does not stretch this holder's view of its lease past the store's.
   */
  constructor(ttlMs: number, renew: () => Promise<boolean>, takenAt = Date.now()) {
    this.renewedAt = takenAt;
    this.givesUpAfter = (ttlMs * 2) / 3;
    this.renewEveryMs = Math.max(10, Math.floor(ttlMs / 3));
    this.renew = renew;
    this.timer = setInterval(() => this.beat(), this.renewEveryMs);
    this.timer.unref();
  }

  get lost(): AbortSignal {
    return this.controller.signal;
  }

  private beat(): void {
    // The last renewal has not answered yet: the database is cut off or very slow.
    if (this.renewing) {
      if (this.stale()) this.lose();
      return;
    }
    this.renewing = true;
    this.send();
  }

  /** Sends a renewal (`renewing` is set). */
  private send(): void {
    // The store's new expiry counts from about now, when the renewal is sent: a renewal answered
    // late (a network stall) must not count from its answer, or this holder would think its lease
    // alive after the store's expiry, when another process may have taken the session.
    const sentAt = Date.now();
    this.renew().then(
      (held) => {
        this.renewing = false;
        if (!held) this.lose();
        else this.renewedAt = Math.max(this.renewedAt, sentAt);
      },
      () => {
        this.renewing = false;
        if (this.stale()) this.lose();
      },
    );
  }

  /**
   * Loses the lease now if no renewal has succeeded for two thirds of its life. A write asks this
   * first: the timer looks only every third of the life (later still when the event loop is busy),
   * so between two of its ticks a holder cut off from its database could otherwise write after the
   * store counts its lease expired and another process has taken the session.
   *
   * A renewal that is due is sent from here too, after the write: a caller whose writes resolve
   * without I/O (SQLite, the file store) in a loop that never yields to the event loop would
   * otherwise starve the timer and lose its lease to its own busyness.
   */
  check(): void {
    if (this.stale()) {
      this.lose();
      return;
    }
    if (this.renewing || Date.now() - this.renewedAt < this.renewEveryMs) return;
    this.renewing = true;
    queueMicrotask(() => {
      if (this.stopped) this.renewing = false;
      else this.send();
    });
  }

  private stale(): boolean {
    return Date.now() - this.renewedAt >= this.givesUpAfter;
  }

  lose(): void {
    this.stop();
    if (!this.controller.signal.aborted) this.controller.abort(new ArborError("session_busy", "The session's lease was lost."));
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }
}

interface Held {
  holder: LeaseHolder;
  beat: LeaseHeartbeat;
}

/** The leases one store instance holds, each with its heartbeat. Each store keeps its own. */
export class HeldLeases {
  private readonly held = new Map<string, Held>();

  constructor(private readonly ttlMs: number) {}

  /**
   * This store's holder of the session, unless it has no lease or lost it. The lease's age is checked
   * now (see `LeaseHeartbeat.check`): a lease not renewed for two thirds of its life counts as lost
   * however long the timer has not run, and a renewal that is due is sent.
   */
  live(id: string): LeaseHolder | undefined {
    const h = this.held.get(id);
    if (!h) return undefined;
    h.beat.check();
    return h.beat.lost.aborted ? undefined : h.holder;
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  /** The sessions this store holds a lease on (lost ones included, until released). */
  ids(): string[] {
    return [...this.held.keys()];
  }

  /** Throws `session_busy` when this store's lease on the session was lost (taken over meanwhile). */
  checkNotLost(id: string): void {
    const beat = this.held.get(id)?.beat;
    beat?.check();
    if (beat?.lost.aborted) throw sessionBusy(id, undefined);
  }

  /**
   * The fence of a holder's write: `storedToken` is the token of the session's lease as the write's
   * own transaction read it, under the session's row lock (which taking a lease takes too). If it is
   * not this holder's, another process took the session over (this holder's lease expired in the
   * store's view, whatever this process's clock says) and the write is refused, the lease counted
   * lost. False when this store holds no lease on the session (the caller checks the stored holder).
   */
  fence(id: string, storedToken: string | undefined, other: () => LeaseHolder | undefined): boolean {
    const h = this.held.get(id);
    if (!h) return false;
    h.beat.check();
    if (!h.beat.lost.aborted && storedToken === h.holder.token) return true;
    h.beat.lose();
    throw sessionBusy(id, other());
  }

  /**
   * Records a lease just taken: `renew` is its heartbeat (false once it is no longer ours) and
   * `giveBack` removes it from the store on release.
   */
  add(
    id: string,
    holder: LeaseHolder,
    renew: () => Promise<boolean>,
    giveBack: () => Promise<void> | void,
    takenAt = Date.now(),
  ): SessionLease {
    const beat = new LeaseHeartbeat(this.ttlMs, renew, takenAt);
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
        await giveBack();
      },
    };
  }

  /** Gives back every lease (closing the store). */
  async releaseAll(giveBack: (id: string, token: string) => Promise<void> | void): Promise<void> {
    const all = [...this.held];
    this.held.clear();
    for (const [id, h] of all) {
      h.beat.stop();
      await giveBack(id, h.holder.token);
    }
  }
}
