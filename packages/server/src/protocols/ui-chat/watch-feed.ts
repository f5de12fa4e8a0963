import type { WatchEvent, WatchHub } from "@arbor/core";

/**
 * The trace watch events of one session, queued for a UI stream that takes them between its run
 * events. The run stream and the watch share the session's event log but reach a reader by
 * different roads (the run's tail, the hub's listeners), so they are merged here: the stream asks
 * for what has arrived, or waits for either the next run event or the next watch event.
 */
export class WatchFeed {
  private readonly queue: WatchEvent[] = [];
  private wake: (() => void) | undefined;
  private arrived: Promise<void> | undefined;
  private stopWatch: (() => void) | undefined;
  private started = false;
  private stopped = false;

  constructor(
    private readonly hub: WatchHub,
    private readonly sessionId: string,
  ) {}

  /** Starts watching after log id `since` (once; later calls do nothing). Resolves when the backlog is queued. */
  async start(since: number): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    try {
      const stop = await this.hub.watch(this.sessionId, since, (message) => {
        if (message.event === "connected") return;
        this.queue.push(message);
        this.wake?.();
      });
      if (this.stopped) stop();
      else this.stopWatch = stop;
    } catch {
      // A session that is gone (deleted mid-run) has no trace to watch; the run's own events still stream.
    }
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** Everything queued so far, oldest first. */
  take(): WatchEvent[] {
    return this.queue.splice(0, this.queue.length);
  }

  /** Resolves when a watch event is queued (at once if one is). */
  next(): Promise<void> {
    if (this.queue.length > 0) return Promise.resolve();
    this.arrived ??= new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        this.arrived = undefined;
        resolve();
      };
    });
    return this.arrived;
  }

  /** Waits until every publish made so far reached this feed (before the stream finishes a message). */
  settle(): Promise<void> {
    return this.started ? this.hub.flush(this.sessionId) : Promise.resolve();
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
    this.stopWatch = undefined;
  }
}
