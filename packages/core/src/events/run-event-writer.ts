import { isArborError } from "../errors.js";
import type { RunEvent } from "../model/run-events.js";
import type { StoredEvent } from "../store/event-records.js";
import type { Store } from "../store/store.js";
import { frameOfRecord, isTerminalRunEvent, type RunEventFrame, runEventInput, shrunkRunEvent } from "./run-event-records.js";
import type { RunEventTail } from "./run-event-tail.js";

/** Events written in one `appendEvents` at most; a longer backlog goes in several. */
const MAX_BATCH = 512;
/** Characters kept of each text field of an event the store refused as too large. */
const SHRUNK_CHARS = 4_000;

/**
 * Appends one run's events to the log in arrival order, one append in flight at a time, everything
 * that arrived meanwhile going in the next. A session that does not exist yet (a new session's
 * first events come before it is created) is retried with the next event; at the run's end what
 * could not be logged still reaches readers, without an id. Nothing is written before the run's
 * `logs` settles: false hands every event to readers without writing it (see `RunEventLog.record`).
 * A run's `done`/`error` is written only when `endsSession` says the run still ends its session's run
 * (see `RunEventLog.record`); otherwise its local readers get it without an id, as a run refused.
 */
export class BatchWriter {
  private pending: RunEvent[] = [];
  private inflight: Promise<void> | undefined;
  private finishing = false;
  /** Whether events are written: undefined while the run's `logs` is unsettled (they wait). */
  private logging: boolean | undefined;
  private readonly gate: Promise<void>;

  constructor(
    private readonly store: Store,
    private readonly tail: RunEventTail,
    private readonly onError: ((err: unknown, sessionId: string) => void) | undefined,
    private readonly onLogged: ((sessionId: string, lastId: number) => void) | undefined,
    logs: Promise<boolean> = Promise.resolve(true),
    private readonly endsSession: () => Promise<boolean> = async () => true,
  ) {
    this.gate = logs.then(
      (ok) => this.open(ok),
      () => this.open(true),
    );
  }

  push(event: RunEvent): void {
    this.pending.push(event);
    if (this.logging === true) this.inflight ??= this.drain();
    else if (this.logging === false) this.handOut();
  }

  private open(ok: boolean): void {
    this.logging = ok;
    // Only with something to write: a drain of nothing ends before `??=` stores it, and would stay "in flight".
    if (ok && this.pending.length > 0) this.inflight ??= this.drain();
    else if (!ok) this.handOut();
  }

  /** Hands what is pending to readers without writing it. */
  private handOut(): void {
    this.tail.append(this.pending.splice(0).map(unlogged));
  }

  async finish(): Promise<void> {
    this.finishing = true;
    await this.gate;
    await this.inflight;
    if (this.pending.length === 0) return;
    this.inflight = this.drain();
    await this.inflight;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        // A run's ending is logged only when it ends the session's run: a run that lost its session
        // to another driver (its lease lapsed, a takeover began) would otherwise end the stream every
        // reader follows, while the new driver's events go on after it in the same log. Its own caller
        // still gets it through the run's handle.
        const last = batch.at(-1);
        const superseded = last !== undefined && isTerminalRunEvent(last) && !(await this.endsSession());
        const written = superseded ? batch.slice(0, -1) : batch;
        const frames = written.length === 0 ? [] : await this.write(written);
        if (frames === "later") {
          this.pending = batch.concat(this.pending);
          return;
        }
        // Nor is it handed to this process's readers: they follow the log on to the new driver's ending.
        this.tail.append(frames);
        const lastId = frames.findLast((f) => f.id !== undefined)?.id;
        if (lastId !== undefined) this.onLogged?.(this.tail.sessionId, lastId);
      }
    } finally {
      this.inflight = undefined;
    }
  }

  /** Logs a batch; `later` when the session does not exist yet and the run is still going. */
  private async write(batch: RunEvent[], again = false): Promise<RunEventFrame[] | "later"> {
    const sessionId = this.tail.sessionId;
    try {
      return (await this.store.appendEvents(sessionId, batch.map(runEventInput))).map(frameOfRecord);
    } catch (err) {
      if (isArborError(err, "session_not_found") && !this.finishing) return "later";
      // The run may have ended while this append raced the session's creation: if the session exists
      // now, the batch is logged after all, so no event goes unlogged under an id the log reuses.
      if (isArborError(err, "session_not_found") && !again && (await this.store.getSession(sessionId).catch(() => undefined))) {
        return this.write(batch, true);
      }
      if (isArborError(err, "entry_too_large")) return this.writeOneByOne(batch);
      if (isArborError(err, "session_not_found")) {
        // The session never came to be (a run refused before it created one) or was deleted: it has
        // no log whose ids these could collide with, so they are numbered on from the tail for the
        // clients that read them live; resuming after one finds no session.
        const base = this.tail.lastId ?? 0;
        return batch.map((event, i) => ({ ...unlogged(event), id: base + i + 1 }));
      }
      this.onError?.(err, sessionId);
      return batch.map(unlogged);
    }
  }

  private async writeOneByOne(batch: RunEvent[]): Promise<RunEventFrame[]> {
    const frames: RunEventFrame[] = [];
    for (const event of batch) {
      let records: StoredEvent[] | undefined;
      for (const candidate of [event, shrunkRunEvent(event, SHRUNK_CHARS)]) {
        try {
          records = await this.store.appendEvents(this.tail.sessionId, [runEventInput(candidate)]);
          break;
        } catch (err) {
          if (!isArborError(err, "entry_too_large")) {
            this.onError?.(err, this.tail.sessionId);
            break;
          }
        }
      }
      frames.push(records?.[0] ? frameOfRecord(records[0]) : unlogged(event));
    }
    return frames;
  }
}

function unlogged(event: RunEvent): RunEventFrame {
  return { id: undefined, json: JSON.stringify(event), terminal: isTerminalRunEvent(event) };
}
