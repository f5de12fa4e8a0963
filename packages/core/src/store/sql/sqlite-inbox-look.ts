import type BetterSqlite3 from "better-sqlite3";
import type { EventInput } from "../event-records.js";
import { INBOX_EVENT_TYPE, INBOX_LOOK_MS } from "../inbox.js";

interface Looked {
  /** The cursor the last read gave: a reader at another cursor reads. */
  cursor: string;
  /** The connection's `data_version` taken just before that read. */
  version: number;
  /** When the run reads anyway (ms, `now`'s clock). */
  lookAt: number;
  /** The read's place among reads and samples (see `sampled`). */
  tick: number;
  /** This store left a message for the session since that read. */
  posted: boolean;
}

/**
 * For the sessions this SQLite store drives, whether their inbox may hold something new since the run
 * last read it, so a step that finds nothing new skips the read (a read transaction: its WAL lock and
 * unlock are system calls). SQLite's `PRAGMA data_version` changes on this connection only when
 * ANOTHER connection (another process, another store on the file) commits; this store's own posts are
 * noted as they are made (`posting`). So: nothing posted here, the version unchanged since the read,
 * and the cursor the read gave — nothing new. `data_version` is a statement with a read transaction
 * of its own, but no table lookup (about half the read's CPU); a run still reads at least every
 * `lookMs`. An entry lives from a read while this store holds the session's lease until the lease ends.
 */
export class SqliteInboxLook {
  private readonly sessions = new Map<string, Looked>();
  /** Own posts in flight per session: until a post has committed and is noted, a step reads. */
  private readonly inFlight = new Map<string, number>();
  private readonly dataVersion: BetterSqlite3.Statement<[], number>;
  /** Counts reads and samples, to tell whether the last sample came after a session's read. */
  private tick = 0;
  /** `data_version` as the last of this store's write transactions saw it (see `sampled`). */
  private sample = { version: 0, tick: 0 };

  /** `busy`: something holds the connection (an open transaction), whose snapshot `data_version` would report. */
  constructor(
    private readonly handle: BetterSqlite3.Database,
    private readonly busy: () => boolean,
    private readonly lookMs = INBOX_LOOK_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.dataVersion = handle.prepare<[], number>("pragma data_version").pluck();
  }

  /**
   * False only when the session's inbox holds nothing after `after`: the last read gave `after`,
   * nothing was posted here since, and no other connection has committed since just before that read.
   */
  mayHaveNew(id: string, after: string): boolean {
    const w = this.sessions.get(id);
    if (w === undefined || w.posted || w.cursor !== after || this.inFlight.has(id) || this.now() >= w.lookAt) return true;
    // A sample from a write transaction of this store's since the read costs nothing more; without
    // one, the statement is a read transaction of its own.
    if (this.sample.tick > w.tick) return this.sample.version !== w.version;
    if (this.busy() || this.handle.inTransaction) return true;
    try {
      return this.dataVersion.get() !== w.version;
    } catch {
      // Outside the store's guard: the read that follows reports the failure as the store's error.
      return true;
    }
  }

  /**
   * Inside a write transaction of this store's (an append's), where the statement takes no lock of its
   * own: what it reports covers every other connection's commit before the transaction began. A step
   * commits at least once after its inbox check, so the next step's check needs no statement; a
   * message committed elsewhere after that transaction is seen after the store's next one, at the
   * step after, or by the look due every `lookMs`.
   */
  sampled(): void {
    this.sample = { version: this.dataVersion.get() as number, tick: ++this.tick };
  }

  /**
   * A read of a session this store drives, on the connection and with nothing holding it, remembered
   * with the version taken just before it: whatever another connection commits after that changes the
   * version the next step sees, whether the read saw the commit or not.
   */
  reading<T extends { cursor: string }>(id: string, read: () => T): T {
    const version = this.dataVersion.get() as number;
    const page = read();
    this.sessions.set(id, { cursor: page.cursor, version, lookAt: this.now() + this.lookMs, posted: false, tick: ++this.tick });
    return page;
  }

  /**
   * Runs an append of this store's: one that files an inbox message counts from its start (a step
   * reads while it is in flight) and marks the session posted once done, so its run reads it at the
   * next step; a read that runs between the commit and the mark is followed by one more.
   */
  async posting<T>(id: string, inputs: readonly EventInput[], append: () => Promise<T>): Promise<T> {
    // Unchecked yet: the append refuses what is not a list of events, with its own error.
    if (!Array.isArray(inputs) || !inputs.some((i) => i?.type === INBOX_EVENT_TYPE)) return append();
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    try {
      return await append();
    } finally {
      const n = (this.inFlight.get(id) ?? 1) - 1;
      if (n === 0) this.inFlight.delete(id);
      else this.inFlight.set(id, n);
      const w = this.sessions.get(id);
      if (w !== undefined) w.posted = true;
    }
  }

  /** The store's lease on the session ended: its entry goes. */
  end(id: string): void {
    this.sessions.delete(id);
  }
}
