import { ArborError } from "../errors.js";
import { assertSessionId } from "../model/ids.js";
import type { RunEvent } from "../model/run-events.js";
import type { StoredEvent } from "../store/event-records.js";
import type { Store } from "../store/store.js";
import { type DrivenElsewhere, RunEventReader } from "./run-event-reader.js";
import { isTerminalRunEvent, RUN_EVENT_PREFIX } from "./run-event-records.js";
import { RunEventTail } from "./run-event-tail.js";
import { BatchWriter } from "./run-event-writer.js";

/** What the log records of a run: its session and its one stream of events (a `RunHandle`). */
export interface RecordedRun extends AsyncIterable<RunEvent> {
  readonly sessionId: string;
}

export interface RunEventLogOptions {
  /** Run events kept in memory per session for readers (default 10,000); older ones are read from the store. */
  eventsPerSession?: number;
  /**
   * Characters of run events kept in memory per session for readers (default 1,048,576, about 200 tool
   * steps with kilobyte outputs); past it the oldest are read from the store, as past `eventsPerSession`.
   */
  charsPerSession?: number;
  /** Tails of sessions with no run going kept in memory (default 100); least recently used dropped first. */
  idleSessions?: number;
  /** Told about a batch the store refused (the events still reach live readers, without an id). */
  onError?: (err: unknown, sessionId: string) => void;
  /**
   * Told after each batch of a run recorded here reached the log, with the batch's last id: how
   * other processes over the same store learn there is more to read (a pointer, never the events).
   */
  onLogged?: (sessionId: string, lastId: number) => void;
  /**
   * How readers follow a run driven by another process. Without it they poll the log while that
   * process holds the session's lease.
   */
  foreign?: ForeignRuns;
  /**
   * Whether a reader that found no driver should still wait: the session is stored finished while
   * its log's latest run has no ending, which its driver died before logging. The runtime's answer
   * (`awaitEnding`) writes that ending from the journal once its process can no longer be logging it.
   */
  unended?: (sessionId: string) => Promise<boolean>;
}

/** A run being recorded (`RunEventLog.open`): its events go in with `push`, `end` after the last. */
export interface RunRecordingSink {
  /** A reader from the run's first event. */
  readonly reader: RunEventReader;
  /** Settles once the run ended and its last event is logged. */
  readonly recorded: Promise<void>;
  push(event: RunEvent): void;
  /** The run's stream ended (with `err` if it failed); a run that did not end with `done` or `error` gets an `error`. */
  end(err?: unknown): void;
}

/** How a reader learns about runs of other processes over the same store. */
export interface ForeignRuns {
  /** Whether another process drives (or is about to take over) the session's run: its reader keeps waiting. */
  driven(sessionId: string): Promise<boolean>;
  /** Resolves once the session's log may have grown (a notification), or after `ms` at the latest. */
  changed(sessionId: string, ms: number): Promise<void>;
}

/** Where a reader starts. */
export type ReadFrom =
  /** Every run event logged after this id (a client's `Last-Event-ID`). */
  | { after: number }
  /** The latest run this process recorded for the session, from its first event. */
  | { latestRun: true }
  /**
   * The session's latest run from its first logged event, found in the log itself (after the last
   * `done`/`error` logged), so any process over the store serves it, also after a restart.
   */
  | { currentRun: true };

/** Where a recorded run's events begin in its session's tail. */
interface RunStart {
  sessionId: string;
  position: number;
  run: number;
}

/** Log records read per page while looking back for the last run's ending. */
const LOOK_BACK_PAGE = 1_000;

/**
 * The run stream's side of the session event log: `record` (the runtime's, for every run) writes a run's events into the store's
 * event log (ids strictly increasing per session, shared with watch events) and only then hands them
 * to readers, so every id a client sees survives a restart. Writes are batched: while one append is
 * in flight the next events gather, so a burst of deltas costs a few appends, and the run itself
 * never waits for the store. The in-memory tails are a bounded cache of the log; `reader` serves a
 * client from the store until it reaches the tail, then live. Owned by one runtime: no module state.
 */
export class RunEventLog {
  private readonly tails = new Map<string, RunEventTail>();
  /**
   * The writers of each session's runs being recorded, for `logged`: a run queued behind the one
   * driving the session is recorded too, and has its own writer.
   */
  private readonly writers = new Map<string, Set<BatchWriter>>();
  private readonly recording = new Set<Promise<void>>();
  /** Where each recorded run starts, for `follow`; forgotten with the handle. */
  private readonly runs = new WeakMap<RecordedRun, RunStart>();
  private readonly store: Store;
  private readonly eventsPerSession: number;
  private readonly charsPerSession: number;
  private readonly idleSessions: number;
  private readonly onError: ((err: unknown, sessionId: string) => void) | undefined;
  private readonly onLogged: ((sessionId: string, lastId: number) => void) | undefined;
  private readonly foreign: ForeignRuns | undefined;
  private readonly unended: ((sessionId: string) => Promise<boolean>) | undefined;

  constructor(store: Store, options: RunEventLogOptions = {}) {
    this.store = store;
    this.eventsPerSession = Math.max(1, options.eventsPerSession ?? 10_000);
    this.charsPerSession = Math.max(0, options.charsPerSession ?? 1_048_576);
    this.idleSessions = Math.max(0, options.idleSessions ?? 100);
    this.onError = options.onError;
    this.onLogged = options.onLogged;
    this.foreign = options.foreign;
    this.unended = options.unended;
  }

  /**
   * Records a run's events into its session's log, with `events` a copy of the run's stream (by
   * default the handle's one iterator). With `logs`, events wait for it before they are written: false
   * (a run refused because another driver holds its session) hands them to readers without writing
   * them, so that driver's log never shows an end that is not its run's. Returns a reader from the
   * run's first event; `recorded` settles when the last event is logged.
   */
  record(
    handle: RecordedRun,
    events: AsyncIterable<RunEvent> = handle,
    logs?: Promise<boolean>,
  ): { reader: RunEventReader; recorded: Promise<void> } {
    const recording = this.open(handle, logs);
    void (async () => {
      try {
        for await (const event of events) recording.push(event);
        recording.end();
      } catch (err) {
        // The run stream does not throw; if it ever does, readers still get an ending.
        recording.end(err);
      }
    })();
    return { reader: recording.reader, recorded: recording.recorded };
  }

  /**
   * As `record`, with the caller handing over each event of the run as it is emitted, then `end`: the
   * runtime's way (for every run it starts), which costs no promise per event between the run and its
   * log (a stream of 50,000 deltas crossed 50,000 of them). Events pushed after `end` are ignored.
   */
  open(handle: RecordedRun, logs?: Promise<boolean>): RunRecordingSink {
    const sessionId = handle.sessionId;
    const tail = this.tailFor(sessionId);
    // Most recently used last, so idle eviction drops the longest-unused tails first.
    this.tails.delete(sessionId);
    this.tails.set(sessionId, tail);
    const position = tail.beginRun();
    const start = { sessionId, position, run: tail.runNumber };
    this.runs.set(handle, start);
    const writer = new BatchWriter(this.store, tail, this.onError, this.onLogged, logs, () => this.endsSession(sessionId));
    const writers = this.writers.get(sessionId) ?? new Set<BatchWriter>();
    this.writers.set(sessionId, writers.add(writer));
    let ended = false;
    let open = true;
    let settle: { resolve(): void; reject(err: unknown): void } | undefined;
    const recorded = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.recording.add(recorded);
    const forget = () => this.recording.delete(recorded);
    recorded.then(forget, forget);
    return {
      reader: this.readerAt(start),
      recorded,
      push: (event) => {
        if (!open) return;
        writer.push(event);
        if (isTerminalRunEvent(event)) ended = true;
      },
      end: (err) => {
        if (!open) return;
        open = false;
        if (!ended) writer.push(internalError(sessionId, err ?? new Error("the run stream ended without done or error")));
        this.finish(tail, writer).then(settle?.resolve, settle?.reject);
      },
    };
  }

  /**
   * A reader of a run the runtime is recording, from its first event, as logged (each event with its
   * log id). It takes the handle's one iterator, so a caller that reads the run this way (a server
   * streaming it) keeps no second copy of its events. Throws `invalid_input` for a run not recorded here.
   */
  follow(handle: RecordedRun): RunEventReader {
    const start = this.runs.get(handle);
    if (!start) throw new ArborError("invalid_input", "This run was not started by the runtime that owns this event log.");
    try {
      void handle[Symbol.asyncIterator]().return?.();
    } catch {
      // Its caller iterates it already: that copy is theirs to drain.
    }
    return this.readerAt(start);
  }

  private readerAt(start: RunStart): RunEventReader {
    const { sessionId, position, run } = start;
    return new RunEventReader(
      this.store,
      sessionId,
      () => this.tails.get(sessionId),
      { position, run },
      this.elsewhere(sessionId),
    );
  }

  /** How a reader of the session learns that another process drives it (and its log will grow). */
  private elsewhere(sessionId: string): DrivenElsewhere {
    const foreign = this.foreign;
    const unended = this.unended;
    const here = () => this.tails.get(sessionId)?.running === true;
    const driver = foreign
      ? () => foreign.driven(sessionId)
      : () => this.store.leaseHolder(sessionId).then((holder) => holder !== undefined);
    return {
      // Nobody drives it: a finished run whose ending its driver never logged is still to end.
      driven: async () => !here() && ((await driver()) || (unended !== undefined && (await unended(sessionId)))),
      ...(foreign ? { changed: (ms: number) => foreign.changed(sessionId, ms) } : {}),
    };
  }

  /**
   * A reader of the session's run events. Throws `events_expired` when `after` is beyond the log
   * (an id this log never issued); `session_not_found` for an unknown session.
   */
  async reader(sessionId: string, from: ReadFrom): Promise<RunEventReader> {
    assertSessionId(sessionId);
    const tailOf = () => this.tails.get(sessionId);
    const elsewhere = this.elsewhere(sessionId);
    if ("latestRun" in from) {
      const tail = tailOf();
      if (tail) {
        return new RunEventReader(this.store, sessionId, tailOf, { position: tail.runStart, run: tail.runNumber }, elsewhere);
      }
      // No run recorded here since this process started: the stream starts at the log's end.
      return new RunEventReader(this.store, sessionId, tailOf, { after: await this.store.lastEventId(sessionId) }, elsewhere);
    }
    if ("currentRun" in from) {
      return new RunEventReader(this.store, sessionId, tailOf, { after: await this.lastRunEnd(sessionId) }, elsewhere);
    }
    const last = await this.store.lastEventId(sessionId);
    if (from.after > last) {
      throw new ArborError(
        "events_expired",
        `Session ${sessionId} has no event ${from.after} (its log ends at ${last}); read the session with GET /api/sessions/${sessionId}.`,
      );
    }
    return new RunEventReader(this.store, sessionId, tailOf, { after: from.after }, elsewhere);
  }

  /**
   * The log id of the session's last logged run ending (0 when none is kept), read back from the
   * log's end a page at a time: a run in progress is near the end, so this rarely reads more than one.
   */
  private async lastRunEnd(sessionId: string): Promise<number> {
    for (let hi = await this.store.lastEventId(sessionId); hi > 0; hi -= LOOK_BACK_PAGE) {
      const from = Math.max(0, hi - LOOK_BACK_PAGE);
      const page = await this.store.listEvents(sessionId, { after: from, limit: hi - from });
      // Retention dropped this page and all before it: the run's kept events start after it.
      if (page.length === 0) return hi;
      for (let i = page.length - 1; i >= 0; i--) {
        const record = page[i] as StoredEvent;
        if (record.type === `${RUN_EVENT_PREFIX}done` || record.type === `${RUN_EVENT_PREFIX}error`) return record.id;
      }
      // Retention dropped what is before this page: the run starts before the oldest kept record.
      if (page.length > 0 && (page[0] as StoredEvent).id > from + 1) return (page[0] as StoredEvent).id - 1;
    }
    return 0;
  }

  /**
   * The session whose recent run events (still in memory) include `eventId`, the most recently
   * recorded first. Ids are per session, so this is a guess for clients that did not say their
   * session; only `reader` with the session id is exact.
   */
  sessionOfRecent(eventId: number): string | undefined {
    const recent = [...this.tails.values()].reverse();
    return (recent.find((t) => t.running && t.holdsId(eventId)) ?? recent.find((t) => t.holdsId(eventId)))?.sessionId;
  }

  /** Resolves when every run being recorded has ended and its last event is logged. */
  async settled(): Promise<void> {
    while (this.recording.size > 0) await Promise.all([...this.recording]);
  }

  /**
   * Resolves once every run event this process's run of the session emitted so far is logged (at
   * once when none is recording): what must follow them in the session's log, a watch event the run
   * published after them, waits for this, so batching never puts it before them.
   */
  async logged(sessionId: string): Promise<void> {
    if (!this.writers.has(sessionId)) return;
    // A run recorded from a stream (`record`) hands its events over a few microtasks later: after this turn, all have.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A run still waiting for the session (queued behind the driver) has logged nothing yet and is
    // not waited for: the driver awaits this before giving the session up, which that run waits for.
    for (const writer of this.writers.get(sessionId) ?? []) await writer.flushLogging();
  }

  /** Whether a run of this process is recording into the session's tail. */
  isRecording(sessionId: string): boolean {
    return this.tails.get(sessionId)?.running === true;
  }

  /** Forgets a deleted session and its sub-sessions (`{id}@…`); their readers end. */
  drop(sessionId: string): void {
    for (const [id, tail] of this.tails) {
      if (id === sessionId || id.startsWith(`${sessionId}@`)) {
        this.tails.delete(id);
        tail.close();
      }
    }
  }

  /** Ends every reader (a server shutting down); recording goes on until the runs end. */
  close(): void {
    for (const tail of this.tails.values()) tail.close();
  }

  private tailFor(sessionId: string): RunEventTail {
    let tail = this.tails.get(sessionId);
    if (!tail || tail.isClosed) {
      tail = new RunEventTail(sessionId, this.eventsPerSession, this.charsPerSession);
      this.tails.set(sessionId, tail);
    }
    return tail;
  }

  /** A recorded run's stream ended: its last events are logged, then its tail stops running. */
  private async finish(tail: RunEventTail, writer: BatchWriter): Promise<void> {
    await writer.finish();
    const writers = this.writers.get(tail.sessionId);
    writers?.delete(writer);
    if (writers?.size === 0) this.writers.delete(tail.sessionId);
    tail.endRun();
    this.evictIdle();
  }

  /**
   * Whether a run ending now ends its session's run. A run stores its outcome in the session (under
   * its lease) before its `done`/`error`; a session still stored as running (or read as interrupted)
   * was not ended by it: the run lost its lease, and another driver has taken the session or will.
   * Its ending then stays out of the log, so readers everywhere go on to the new driver's events.
   */
  private async endsSession(sessionId: string): Promise<boolean> {
    const status = (await this.store.getSession(sessionId).catch(() => undefined))?.status;
    return status !== "running" && status !== "interrupted";
  }

  private evictIdle(): void {
    let idle = 0;
    for (const tail of this.tails.values()) if (!tail.running) idle++;
    for (const [id, tail] of this.tails) {
      if (idle <= this.idleSessions) break;
      if (tail.running) continue;
      this.tails.delete(id);
      tail.close();
      idle--;
    }
  }
}

function internalError(sessionId: string, err: unknown): RunEvent {
  const message = err instanceof Error ? err.message : String(err);
  return { type: "error", session_id: sessionId, content: `Internal error: ${message}`, code: "internal_error" };
}
