import type { RunEvent, RunHandle } from "@arbor/core";

/** What a reader gets from one `read`: the SSE text of consecutive frames and where it stopped. */
export interface LogRead {
  text: string;
  /** Id of the last frame in `text`: the reader's next cursor. */
  lastId: number;
  /** `text` ends with a run's `done` or `error`: the reader's stream is complete. */
  ended: boolean;
}

export type LogState = "idle" | "reserved" | "running";

/** Frames handed to a reader in one write, at most (a burst of deltas goes out as one chunk). */
const MAX_FRAMES_PER_READ = 256;

/**
 * One session's recent run events as ready-made SSE frames (`id: N\ndata: {json}\n\n`), shared by
 * every reader. Readers are cursors (the last id they were sent), not queues: an event is
 * serialized once however many clients read it, a slow client holds no copy, and a reconnecting
 * client resumes by id. Appending and reading are synchronous, so a reader that reads to the end
 * and then waits cannot miss or repeat an event. Retention is bounded: the oldest frames are
 * dropped past `maxEvents`, and a cursor older than what was dropped reads as `expired`.
 */
export class SessionLog {
  readonly sessionId: string;
  state: LogState = "idle";
  /** The run in progress (state `running`). */
  handle: RunHandle | undefined;
  /** An abort asked for while the session was reserved, applied when its run starts. */
  abortRequested = false;
  /** The cursor before the first event of the latest run: where a reader without an id starts. */
  latestRunCursor = 0;

  private ids: number[] = [];
  private frames: string[] = [];
  private terminal: boolean[] = [];
  private start = 0;
  /** Highest id dropped by trimming; 0 when nothing was dropped. */
  private droppedThrough = 0;
  /** Lowest id this log ever held (0 before the first event). */
  private firstId = 0;
  private wake: (() => void) | undefined;
  private changed: Promise<void> | undefined;
  private closed = false;
  private readonly maxEvents: number;

  constructor(sessionId: string, maxEvents: number) {
    this.sessionId = sessionId;
    this.maxEvents = maxEvents;
  }

  get lastId(): number {
    return this.ids.length > this.start ? (this.ids[this.ids.length - 1] as number) : this.droppedThrough;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether `id` was issued to this log (retained or not). */
  owns(id: number): boolean {
    return this.firstId > 0 && id >= this.firstId && id <= this.lastId;
  }

  append(id: number, event: RunEvent): void {
    if (this.firstId === 0) this.firstId = id;
    this.ids.push(id);
    this.frames.push(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`);
    this.terminal.push(event.type === "done" || event.type === "error");
    if (this.ids.length - this.start > this.maxEvents) this.trim();
    this.notify();
  }

  /**
   * Frames after `cursor`, stopping after the first terminal one; undefined when there is nothing
   * after it yet; `expired` when frames after it were already dropped, or the cursor is newer than
   * anything this log issued (an id from before a server restart).
   */
  read(cursor: number): LogRead | "expired" | undefined {
    if (cursor < this.droppedThrough || cursor > this.lastId) return "expired";
    let i = this.indexAfter(cursor);
    if (i >= this.ids.length) return undefined;
    const end = Math.min(this.ids.length, i + MAX_FRAMES_PER_READ);
    let text = "";
    let ended = false;
    for (; i < end && !ended; i++) {
      text += this.frames[i];
      ended = this.terminal[i] as boolean;
    }
    return { text, lastId: this.ids[i - 1] as number, ended };
  }

  /** Resolves at the next append, at the end of the run, or when the log closes. */
  next(): Promise<void> {
    this.changed ??= new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    return this.changed;
  }

  /** Wakes every waiting reader (after an append, a run's end or close). */
  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.changed = undefined;
    wake?.();
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  /** First index whose id is greater than `cursor` (ids are strictly increasing). */
  private indexAfter(cursor: number): number {
    let lo = this.start;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ids[mid] as number) <= cursor) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private trim(): void {
    this.droppedThrough = this.ids[this.start] as number;
    this.frames[this.start] = "";
    this.start++;
    // Compact once the dropped prefix is as long as what is kept: amortized O(1) per append.
    if (this.start >= 1024 && this.start * 2 >= this.ids.length) {
      this.ids = this.ids.slice(this.start);
      this.frames = this.frames.slice(this.start);
      this.terminal = this.terminal.slice(this.start);
      this.start = 0;
    }
  }
}
