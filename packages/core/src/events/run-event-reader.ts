import type { StoredEvent } from "../store/event-records.js";
import type { Store } from "../store/store.js";
import { frameOfRecord, isRunEventRecord, type RunEventFrame } from "./run-event-records.js";
import type { RunEventTail } from "./run-event-tail.js";

/** What one `next` gives: frames to send, or why there is nothing more. */
export type RunEventStep =
  | { kind: "frames"; frames: RunEventFrame[]; ended: boolean }
  /** Nothing after the cursor and no run of this process going: the stream is complete. */
  | { kind: "end" }
  /** Events after the cursor were dropped from the log (retention): exactly-once is no longer possible. */
  | { kind: "expired" }
  /** Only from `next(false)`: nothing yet, but a run is going, so more will come. */
  | { kind: "live" };

/** Log records read from the store per page while catching up. */
const STORE_PAGE = 256;
/**
 * How often the log is read again while another process drives the session: its events reach
 * this process only through the store, which has no change feed for every backend.
 */
const FOREIGN_POLL_MS = 200;
/** The longest wait for a notification before the log is read again anyway. */
const FOREIGN_WAIT_MS = 1_000;

/**
 * Whether another process drives the session now, and (optionally) a wait that ends when its log
 * may have grown; without one the reader polls.
 */
export interface DrivenElsewhere {
  driven(): Promise<boolean>;
  changed?(ms: number): Promise<void>;
}

/**
 * One client's cursor over a session's run events: from the store's event log while it is behind
 * what the in-memory tail holds, then from the tail, then live. Each event once, in log order,
 * stopping after the first `done` or `error`. It never holds more than one page.
 */
export class RunEventReader {
  private readonly store: Store;
  private readonly sessionId: string;
  private readonly tailOf: () => RunEventTail | undefined;
  private readonly drivenElsewhere: DrivenElsewhere | undefined;
  /** Reading the tail at this position; undefined while reading the store. */
  private pos: number | undefined;
  /** The log id of the last event handed out (or the cursor it started from). */
  private lastId: number | undefined;
  /** The tail run a position reader started in (its fallback to the store is only sound within it). */
  private readonly run: number | undefined;
  /** The tail run this reader read to its end without an ending, and left for the log. */
  private leftRun: number | undefined;
  private done = false;

  constructor(
    store: Store,
    sessionId: string,
    tailOf: () => RunEventTail | undefined,
    from: { after: number } | { position: number; run: number },
    drivenElsewhere?: DrivenElsewhere,
  ) {
    this.store = store;
    this.drivenElsewhere = drivenElsewhere;
    this.sessionId = sessionId;
    this.tailOf = tailOf;
    if ("after" in from) {
      this.lastId = from.after;
      this.run = undefined;
    } else {
      this.pos = from.position;
      this.run = from.run;
    }
  }

  /** The next events; with `wait` false it answers `live` instead of waiting for a running run's next event. */
  async next(wait = true): Promise<RunEventStep> {
    // The log was read once more after "nobody drives it", to see what a driver logged before it let go.
    let askedIdle = false;
    for (;;) {
      if (this.done) return { kind: "end" };
      const tail = this.tailOf();
      if (this.pos !== undefined) {
        if (!tail || tail.isClosed) return { kind: "end" };
        const read = tail.read(this.pos);
        if (read === "dropped") {
          // A slow reader fell behind the tail: the store still has what it needs, unless retention dropped it too.
          const after = this.lastId ?? (tail.runNumber === this.run ? tail.runFloorId : undefined);
          if (after === undefined) return { kind: "expired" };
          this.lastId = after;
          this.pos = undefined;
          continue;
        }
        if (read !== undefined) {
          this.pos = read.pos;
          return this.hand(read.frames, read.ended);
        }
        if (!tail.running) {
          // The tail's run ended without an ending handed out: it lost the session to another driver
          // (its ending stays out of the log), whose events go on in the log after it. Read on there.
          const after = this.lastId ?? (tail.runNumber === this.run ? tail.runFloorId : undefined);
          if (after === undefined) return { kind: "end" };
          this.lastId = after;
          this.pos = undefined;
          this.leftRun = tail.runNumber;
          continue;
        }
        if (!wait) return { kind: "live" };
        await tail.next();
        continue;
      }
      const after = this.lastId ?? 0;
      // Not back into a tail run this reader has read to its end: what follows it is only in the log.
      const resumeAt = tail && tail.runNumber !== this.leftRun ? tail.positionAfterId(after) : undefined;
      if (resumeAt !== undefined) {
        this.pos = resumeAt;
        continue;
      }
      const page = await this.store.listEvents(this.sessionId, { after, limit: STORE_PAGE });
      // Log ids have no gaps: a jump means retention dropped records this reader has not had.
      if (page.length > 0 && (page[0] as StoredEvent).id !== after + 1) return { kind: "expired" };
      if (page.length === 0) {
        // Asked again after the read: a run of this process may have begun meanwhile (a queued chat taken here).
        const current = this.tailOf();
        if (current?.running) {
          if (!wait) return { kind: "live" };
          await current.next();
          continue;
        }
        if (await this.drivenElsewhere?.driven()) {
          if (!wait) return { kind: "live" };
          const changed = this.drivenElsewhere?.changed;
          // A notification is only a hint to read sooner: the wait is bounded, so a lost one costs a poll.
          if (changed) await changed(FOREIGN_WAIT_MS);
          else await new Promise<void>((resolve) => setTimeout(resolve, FOREIGN_POLL_MS));
          continue;
        }
        // Or while the other processes were asked, which then said no because the run is here.
        if (this.tailOf()?.running) continue;
        // A driver logs its last events before it lets the session go: when it did both between this
        // read and the ask, they are in the log now. One more read, after the "no", sees them.
        if (!askedIdle) {
          askedIdle = true;
          continue;
        }
        return { kind: "end" };
      }
      askedIdle = false;
      this.lastId = (page[page.length - 1] as StoredEvent).id;
      const frames: RunEventFrame[] = [];
      let ended = false;
      for (const record of page) {
        if (!isRunEventRecord(record)) continue;
        const frame = frameOfRecord(record);
        frames.push(frame);
        if (frame.terminal) {
          ended = true;
          this.lastId = record.id;
          break;
        }
      }
      if (frames.length > 0) return this.hand(frames, ended);
    }
  }

  /** Stops the reader (its client left): a wait in progress ends at the next event or poll, with `end`. */
  close(): void {
    this.done = true;
  }

  private hand(frames: RunEventFrame[], ended: boolean): RunEventStep {
    for (let i = frames.length - 1; i >= 0; i--) {
      const id = (frames[i] as RunEventFrame).id;
      if (id !== undefined) {
        this.lastId = id;
        break;
      }
    }
    if (ended) this.done = true;
    return { kind: "frames", frames, ended };
  }
}
