import { isArborError } from "../errors.js";
import type { RunEvent } from "../model/run-events.js";
import type { StoredEvent } from "../store/event-records.js";
import type { Store } from "../store/store.js";
import {
  frameOfRecord,
  framesOfLogged,
  isTerminalRunEvent,
  type RunEventFrame,
  runEventInput,
  shrunkRunEvent,
} from "./run-event-records.js";
import type { RunEventTail } from "./run-event-tail.js";

/** Events written in one `appendEvents` at most; a longer backlog goes in several. */
const MAX_BATCH = 512;
/**
 * Events that end a burst: a run's ending, and an ask the run now waits on. They are logged at once,
 * not a turn later: whatever tells the world the run ended or waits (its handle, the durable ask a
 * client lists and answers) must not be ahead of the log that clients resume from. As before any
 * batching, the run does not await the append: they are logged within the turn they are emitted in.
 */
const LOGGED_AT_ONCE: ReadonlySet<RunEvent["type"]> = new Set([
  "done",
  "error",
  "permission_request",
  "question_request",
  "elicitation_request",
  "plan_approval_request",
]);
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
  /** Callers waiting in `flush`: while any does, the drain writes what is pending without waiting a turn. */
  private flushing = 0;
  /** Ends the drain's wait for the turn's end early (an event to log at once, a flush). */
  private wake: (() => void) | undefined;
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
    if (this.logging === true) {
      this.inflight ??= this.drainSoon();
      // A full batch need not wait for the turn's end: a burst handed over in microtasks alone (a fast
      // stream's deltas) would otherwise wait for the whole run, and be written after its lease is gone.
      if (LOGGED_AT_ONCE.has(event.type) || this.pending.length % MAX_BATCH === 0) this.wake?.();
    } else if (this.logging === false) this.handOut();
  }

  /**
   * Resolves once every event pushed so far is logged (or handed out unlogged), the batch being
   * written without waiting for more to gather: for a write that must follow them in the log (a watch
   * event the run published after them). While the run's `logs` is unsettled it waits for that too;
   * events of a session not created yet stay pending, as they would anyway (they go with the next).
   */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      await this.gate;
      // The drain in flight takes what arrives meanwhile too, and no longer waits a turn between batches.
      this.wake?.();
      await this.inflight;
      if (this.logging === true && this.pending.length > 0) {
        this.inflight ??= this.drain();
        await this.inflight;
      }
    } finally {
      this.flushing--;
    }
  }

  /** `flush`, unless the run's `logs` is unsettled: then at once, with nothing written (its events wait). */
  async flushLogging(): Promise<void> {
    if (this.logging !== undefined) await this.flush();
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
    // Nothing more is coming: what is pending goes now, not after the turn.
    this.wake?.();
    await this.inflight;
    if (this.pending.length === 0) return;
    this.inflight = this.drain();
    await this.inflight;
  }

  /**
   * Drains once this turn of the event loop is over, so that the events emitted together go in one
   * append: a step's start, text, tool call and tool events, or a burst of streamed deltas handed over
   * a few microtasks apart. Started at once, an append that completes within the turn (SQLite's is
   * synchronous) left each event a commit of its own (seven a step instead of one), and 50,000 deltas
   * went in 20,008 appends. Readers get an event when it is logged, one turn later at most; readers
   * that need the session as it stood at an event read it from the event (`llm_start`'s `leaf_id`),
   * and watch events wait for the run's events published before them (`RunEventLog.logged`).
   */
  private async drainSoon(): Promise<void> {
    await this.turnEnd();
    return this.drain();
  }

  /** Resolves once this turn of the event loop is over, or earlier when `wake` is called. */
  private turnEnd(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setImmediate(() => {
        this.wake = undefined;
        resolve();
      });
      this.wake = () => {
        this.wake = undefined;
        clearImmediate(timer);
        resolve();
      };
    });
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
        // So is a run cut off by its lapsed lease before it stored anything (a new session's first run,
        // no status yet): a queued chat's run goes back to the queue and runs again, and the session
        // would otherwise read as ended by an error no one's run ended with.
        const superseded = last !== undefined && isTerminalRunEvent(last) && (lostLease(last) || !(await this.endsSession()));
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
        // What arrived while this batch was written is the head of the next burst: let it gather.
        const next = this.pending.at(-1);
        const gather = next !== undefined && !LOGGED_AT_ONCE.has(next.type) && this.pending.length < MAX_BATCH;
        if (gather && !this.finishing && this.flushing === 0) await this.turnEnd();
      }
    } finally {
      this.inflight = undefined;
    }
  }

  /** Logs a batch; `later` when the session does not exist yet and the run is still going. */
  private async write(batch: RunEvent[], again = false): Promise<RunEventFrame[] | "later"> {
    const sessionId = this.tail.sessionId;
    try {
      const inputs = batch.map(runEventInput);
      return framesOfLogged(batch, inputs, await this.store.appendEvents(sessionId, inputs));
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

/** A started run's stream ends with `session_busy` only when its lease lapsed and its writes were fenced off. */
function lostLease(event: RunEvent): boolean {
  return event.type === "error" && event.code === "session_busy";
}
