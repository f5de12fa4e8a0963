import type { RunEventFrame } from "./run-event-records.js";

/** What one `read` of the tail gives: consecutive frames after a position, and where they stop. */
export interface TailRead {
  frames: RunEventFrame[];
  /** Position of the last frame read: the reader's next cursor. */
  pos: number;
  /** The frames end with a run's `done` or `error`. */
  ended: boolean;
}

/** Stands in the slots of dropped frames until the array is compacted. */
const DROPPED: RunEventFrame = { id: undefined, json: "", terminal: false, chars: 0 };

function charsOf(frame: RunEventFrame): number {
  return frame.chars ?? frame.json.length;
}

/** Frames handed out in one read, at most (a burst of deltas goes out as one chunk). */
const MAX_FRAMES_PER_READ = 256;

/**
 * The in-memory tail of one session's run events, as logged: a cache in front of the store's event
 * log, never the truth. Readers hold positions in it (1, 2, … in append order), so an event is
 * serialized once for every reader and a slow reader holds no copy. Retention is bounded: past
 * `maxFrames` frames or `maxChars` characters the oldest are dropped, and a reader whose position was
 * dropped goes back to the store. The character bound is what keeps memory in check: a step's events
 * carry its input and output texts (kilobytes), so 10,000 frames of a long session held ~10 MB, and a
 * server keeps the tails of a hundred sessions.
 * `floorId` says which log ids the tail answers for: every run event with a greater id is here.
 */
export class RunEventTail {
  readonly sessionId: string;
  /** A run of this process is recording into the tail. */
  running = false;
  /** The position before the latest run's first frame: where a reader of "the latest run" starts. */
  runStart = 0;
  /** Counts the runs recorded here, so a reader knows whether the latest run is still its own. */
  runNumber = 0;

  private frames: RunEventFrame[] = [];
  /** Frames before this index were dropped (kept as holes until compaction). */
  private start = 0;
  /** Positions removed by compaction: frames[i] is at position base + i + 1. */
  private base = 0;
  /** Log id before the latest run's first logged frame; undefined until it has one. */
  private runFloor: number | undefined;
  /** Highest log id dropped from the tail. */
  private droppedId = 0;
  private wake: (() => void) | undefined;
  private changed: Promise<void> | undefined;
  private closed = false;
  private readonly maxFrames: number;
  private readonly maxChars: number;
  /** Characters of the frames held (from `start`). */
  private chars = 0;

  constructor(sessionId: string, maxFrames: number, maxChars = Number.POSITIVE_INFINITY) {
    this.sessionId = sessionId;
    this.maxFrames = Math.max(1, maxFrames);
    this.maxChars = Math.max(0, maxChars);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Position of the newest frame (0 before any). */
  get end(): number {
    return this.base + this.frames.length;
  }

  /** The log ids this tail answers for are those above this; undefined while it answers for none. */
  get floorId(): number | undefined {
    return this.runFloor === undefined ? undefined : Math.max(this.runFloor, this.droppedId);
  }

  /** The log id before the latest run's first logged frame; undefined until it has one. */
  get runFloorId(): number | undefined {
    return this.runFloor;
  }

  /** The lowest position still held. */
  get firstHeld(): number {
    return this.base + this.start + 1;
  }

  /** A new run starts recording: its frames follow, and ids before its first logged one come from the store. */
  beginRun(): number {
    this.running = true;
    this.runNumber++;
    this.runStart = this.end;
    this.runFloor = undefined;
    return this.runStart;
  }

  endRun(): void {
    this.running = false;
    this.notify();
  }

  append(frames: readonly RunEventFrame[]): void {
    for (const frame of frames) {
      if (this.runFloor === undefined && frame.id !== undefined) this.runFloor = frame.id - 1;
      this.frames.push(frame);
      this.chars += charsOf(frame);
    }
    // The newest frame stays whatever its size: a reader waiting for it gets it from here.
    while (
      this.frames.length - this.start > this.maxFrames ||
      (this.chars > this.maxChars && this.frames.length - this.start > 1)
    )
      this.drop();
    this.notify();
  }

  /**
   * Frames after position `pos`, stopping after the first terminal one; undefined when there is
   * none yet; `dropped` when frames after it are no longer held (read the store instead).
   */
  read(pos: number): TailRead | "dropped" | undefined {
    if (pos < this.firstHeld - 1) return "dropped";
    let i = pos - this.base;
    if (i >= this.frames.length) return undefined;
    const stop = Math.min(this.frames.length, i + MAX_FRAMES_PER_READ);
    const frames: RunEventFrame[] = [];
    let ended = false;
    for (; i < stop && !ended; i++) {
      const frame = this.frames[i] as RunEventFrame;
      frames.push(frame);
      ended = frame.terminal;
    }
    return { frames, pos: this.base + i, ended };
  }

  /**
   * The position just after the frame with log id `id`, for a reader resuming from it; undefined
   * when the tail does not answer for that id (it is below the floor, or beyond what it holds yet).
   */
  positionAfterId(id: number): number | undefined {
    const floor = this.floorId;
    if (floor === undefined || id < floor) return undefined;
    // The log is ahead of the tail (a batch is written there before it is handed here): a reader
    // that already has that id is placed once the tail holds it, not before it, or it gets it twice.
    if (id > (this.lastId ?? floor)) return undefined;
    // Logged ids increase along the tail; a frame without an id (never logged) is passed over.
    let lo = this.start;
    let hi = this.frames.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.idAtOrBefore(mid) ?? floor) <= id) lo = mid + 1;
      else hi = mid;
    }
    return this.base + lo;
  }

  /** The newest log id the tail holds. */
  get lastId(): number | undefined {
    return this.frames.length > this.start ? this.idAtOrBefore(this.frames.length - 1) : undefined;
  }

  /** Whether `id` lies within the run events this tail holds (from its floor to its newest logged id). */
  holdsId(id: number): boolean {
    const floor = this.floorId;
    if (floor === undefined || id < floor) return false;
    const last = this.lastId;
    return last !== undefined && id <= last;
  }

  /** Resolves at the next append, at the end of a run, or when the tail closes. */
  next(): Promise<void> {
    this.changed ??= new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    return this.changed;
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.changed = undefined;
    wake?.();
  }

  /** The id of frame `i`, or of the closest logged frame before it. */
  private idAtOrBefore(i: number): number | undefined {
    for (let j = i; j >= this.start; j--) {
      const id = (this.frames[j] as RunEventFrame).id;
      if (id !== undefined) return id;
    }
    return undefined;
  }

  private drop(): void {
    const frame = this.frames[this.start] as RunEventFrame;
    if (frame.id !== undefined) this.droppedId = frame.id;
    this.chars -= charsOf(frame);
    // The slot is cleared, not only passed: a dropped frame's texts are freed before the next compaction.
    this.frames[this.start] = DROPPED;
    this.start++;
    // Compact once the dropped prefix is as long as what is kept: amortized O(1) per append.
    if (this.start >= 1024 && this.start * 2 >= this.frames.length) {
      this.frames = this.frames.slice(this.start);
      this.base += this.start;
      this.start = 0;
    }
  }
}
