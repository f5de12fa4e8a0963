import { isArborError } from "../errors.js";
import { assertSessionId, parentTraceId } from "../model/ids.js";
import type { EventInput, StoredEvent } from "../store/event-records.js";
import { KeyedLock } from "../store/keyed-lock.js";
import type { Store } from "../store/store.js";
import { type WatchEvent, type WatchEventInput, WatchEventSchema, type WatchMessage } from "./watch-events.js";

export type WatchListener = (event: WatchEvent) => void;

/** Where a `connected` event's goal tree comes from: the tree of the trace as watchers read it, or null. */
export type GoalTreeSource = (traceId: string) => Promise<unknown>;

export interface WatchHubOptions {
  /**
   * The goal tree a `connected` event carries for a trace, as watchers read it (null: it has none).
   * Without it the runtime the hub is given to supplies one (`provideGoalTree`): the hub knows no goals.
   */
  goalTree?: GoalTreeSource;
  /** Told about a publish the store refused (other than for a deleted session or a closed store); publishing never rejects. */
  onError?: (err: unknown, traceId: string, event: WatchEventInput) => void;
  /**
   * How often a watched trace's log is read for events other processes over the same store logged
   * (a CLI run watched through a server), in ms; default 250. 0: only this hub's own publishes are live.
   */
  followMs?: number;
}

const PAGE = 200;
const FOLLOW_MS = 250;

/** A watched trace's log as far as this hub delivered it to live watchers, and the next look for more. */
interface Followed {
  delivered: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface WatchOptions {
  /** Awaited between pages of the backlog: resolves when the client can take more (its socket drained). */
  drain?: () => Promise<void>;
  /** Ends the watch early (the client left while the backlog was being sent). */
  signal?: AbortSignal;
}

/** A publish waiting for its append to one trace's log. */
interface Queued {
  /** The trace the event happened in (the log may be an ancestor's). */
  traceId: string;
  event: WatchEventInput;
  input: EventInput;
  /** Settles the publish's promise for this log. */
  delivered: () => void;
}

/** The log also holds records that are not watch events (DebugMiddleware's); watchers are sent only these. */
const WATCH_EVENT_NAMES: ReadonlySet<string> = new Set(WatchEventSchema.options.map((o) => o.shape.event.value));

/** A stored record as the watch event it was logged as. */
export function watchEventFromRecord(record: StoredEvent): WatchEvent {
  return { ...record.data, event: record.type, event_id: record.id, timestamp: record.timestamp } as WatchEvent;
}

/**
 * The watch side of the event log. `publish` logs an event in its trace's log and
 * in every ancestor trace's log (a parent's watchers see its sub-traces' events), each with that
 * log's next id, and hands it to that log's live watchers in id order. `watch` replays the log after
 * `since` and then delivers live events, each exactly once: it subscribes before it reads, and drops
 * what it has already delivered by id. While a trace is watched, its log is also read every
 * `followMs` for what other processes over the same store logged, so a run driven anywhere is seen
 * live. Owned by whoever owns the store: no module state. A runtime publishes its runs to its own
 * hub (`runtime.watch`) unless given one (`createRuntime({ watch })`).
 */
export class WatchHub {
  private readonly listeners = new Map<string, Set<WatchListener>>();
  private readonly followed = new Map<string, Followed>();
  private readonly order = new KeyedLock();
  private readonly inner: Store;
  private readonly options: WatchHubOptions;
  private goalTree: GoalTreeSource | undefined;
  /** What a publish to a trace's log waits for first (`orderAfter`). */
  private readonly before = new Set<(traceId: string) => Promise<void>>();
  /** Publishes waiting for their trace's next append, per trace, in call order. */
  private readonly queued = new Map<string, Queued[]>();

  constructor(store: Store, options: WatchHubOptions = {}) {
    this.inner = store;
    this.options = options;
    this.goalTree = options.goalTree;
  }

  /**
   * Sets where `connected` events take their goal tree from, unless the hub was made with one: the
   * runtime the hub is given to calls it, since goals are a feature of its runs.
   */
  provideGoalTree(source: GoalTreeSource): void {
    this.goalTree ??= source;
  }

  /**
   * Makes every publish to a trace's log wait for `barrier(traceId)` first: a runtime's run events
   * are logged in batches a turn after they are emitted, and a watch event published after them
   * (a sub-agent's start after its tool call) must come after them in the log too, as readers that
   * start from a run event's id rely on. Returns the function that removes it.
   */
  orderAfter(barrier: (traceId: string) => Promise<void>): () => void {
    this.before.add(barrier);
    return () => this.before.delete(barrier);
  }

  /**
   * Logs and delivers `event` for `traceId`. Publishes to one trace are logged and delivered in call
   * order; the promise resolves once every log has it, and never rejects: a store failure goes to
   * `onError`, since watching must never fail a run. Publishes that arrive while a trace's log is
   * being written go in its next append together (see `writeQueued`).
   */
  publish(traceId: string, event: WatchEventInput): Promise<void> {
    const { event: type, ...payload } = event;
    const queued: Omit<Queued, "delivered"> = { traceId, event, input: { type, data: { ...payload, trace_id: traceId } } };
    // A top-level trace's publish (each message a run writes) has one log: its own promise is the answer.
    const parent = parentTraceId(traceId);
    if (parent === undefined) return this.enqueue(traceId, queued);
    const logged: Promise<void>[] = [this.enqueue(traceId, queued)];
    for (let id: string | undefined = parent; id !== undefined; id = parentTraceId(id)) logged.push(this.enqueue(id, queued));
    return Promise.all(logged).then(() => undefined);
  }

  /** Queues a publish for one trace's log; the first of a batch schedules its write under the trace's order. */
  private enqueue(target: string, queued: Omit<Queued, "delivered">): Promise<void> {
    return new Promise<void>((delivered) => {
      const waiting = this.queued.get(target);
      if (waiting) {
        waiting.push({ ...queued, delivered });
        return;
      }
      this.queued.set(target, [{ ...queued, delivered }]);
      void this.order.run(target, () => this.writeQueued(target));
    });
  }

  /**
   * Writes every publish queued for the trace so far in one append, then delivers them in order. The
   * batch is taken before the barriers are awaited, so each of its publishes was made before the
   * barrier looked: the run events emitted before it are logged first, as with one append each.
   * A run publishing faster than its log is written (a model that answers at once) thus costs one
   * append per turn of the event loop, not one per message, and its log keeps up with it.
   */
  private async writeQueued(target: string): Promise<void> {
    const batch = this.queued.get(target) ?? [];
    this.queued.delete(target);
    try {
      for (const barrier of this.before) await barrier(target);
      await this.append(target, batch);
    } catch (err) {
      // A barrier failed: reported like a refused write, never thrown into a run.
      for (const queued of batch) this.options.onError?.(err, queued.traceId, queued.event);
    } finally {
      for (const queued of batch) queued.delivered();
    }
  }

  private async append(target: string, batch: readonly Queued[]): Promise<void> {
    let records: StoredEvent[];
    try {
      records = await this.inner.appendEvents(
        target,
        batch.map((q) => q.input),
      );
    } catch (err) {
      // A deleted session or a closed store is expected at the end of a life; anything else is reported.
      if (isArborError(err, "session_not_found") || isArborError(err, "store_closed")) return;
      // One event the store refuses (too large, say) must not cost the others theirs: each is tried alone.
      if (batch.length > 1 && (isArborError(err, "entry_too_large") || isArborError(err, "invalid_input"))) {
        for (const queued of batch) await this.append(target, [queued]);
        return;
      }
      for (const queued of batch) this.options.onError?.(err, queued.traceId, queued.event);
      return;
    }
    records.forEach((record, i) => {
      try {
        this.deliver(target, watchEventFromRecord(record));
      } catch (err) {
        // A watcher that throws loses this event; the others still get theirs.
        const queued = batch[i] as Queued;
        this.options.onError?.(err, queued.traceId, queued.event);
      }
    });
  }

  /**
   * Resolves when every publish made so far is logged and delivered; with `traceId`, every publish
   * that reaches that trace's log (its own and its sub-traces'), without waiting for other traces.
   */
  flush(traceId?: string): Promise<void> {
    return traceId === undefined ? this.order.drain() : this.order.settled(traceId);
  }

  /**
   * Watches a trace: `send` gets `connected` first (its `current_event_id` is the newest logged id at
   * that moment), then every logged event after `since`, oldest first, then live ones, each exactly
   * once and in id order. A `since` beyond the log counts as its end. The backlog is streamed a page
   * at a time, yielding to the event loop between pages and awaiting `options.drain` (the socket's
   * backpressure), so a long log neither blocks the process nor piles up in memory. Throws
   * `session_not_found` for an unknown trace. Resolves once the backlog is sent (or `options.signal`
   * ended the watch), with the function that stops the watch.
   */
  async watch(
    traceId: string,
    since: number,
    send: (message: WatchMessage) => void,
    options: WatchOptions = {},
  ): Promise<() => void> {
    assertSessionId(traceId);
    let delivered = 0;
    let live = false;
    const early: WatchEvent[] = [];
    const deliver = (event: WatchEvent) => {
      if (event.event_id <= delivered) return;
      delivered = event.event_id;
      send(event);
    };
    // Subscribe before reading, so nothing logged meanwhile is missed; `delivered` drops repeats.
    const subscriber: WatchListener = (event) => (live ? deliver(event) : early.push(event));
    let set = this.listeners.get(traceId);
    if (!set) {
      set = new Set();
      this.listeners.set(traceId, set);
    }
    set.add(subscriber);
    const stop = () => {
      const current = this.listeners.get(traceId);
      current?.delete(subscriber);
      if (current?.size === 0) {
        this.listeners.delete(traceId);
        this.unfollow(traceId);
      }
    };
    try {
      const [first] = await this.inner.listEvents(traceId, { limit: 1 });
      // Everything logged after this id was logged after subscribing, so it is in `early`.
      const current = await this.inner.lastEventId(traceId);
      const goalTree = this.goalTree ? await this.goalTree(traceId) : null;
      delivered = Math.min(since, current);
      send({
        event: "connected",
        trace_id: traceId,
        current_event_id: current,
        first_event_id: first?.id ?? 0,
        goal_tree: goalTree ?? null,
      });
      for (let after = delivered; after < current && options.signal?.aborted !== true; ) {
        const page = await this.inner.listEvents(traceId, { after, limit: PAGE });
        for (const record of page) {
          if (record.id > current) break;
          if (WATCH_EVENT_NAMES.has(record.type)) deliver(watchEventFromRecord(record));
        }
        if (page.length < PAGE) break;
        after = (page[page.length - 1] as StoredEvent).id;
        await options.drain?.();
        // A page is a few ms of work; other requests and sockets get their turn between pages.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      for (const event of early) deliver(event);
      early.length = 0;
      live = true;
      // Anything logged after `current` is either in `early` or found by the follower.
      if (this.listeners.get(traceId)?.has(subscriber)) this.follow(traceId, current);
      if (options.signal?.aborted === true) stop();
      return stop;
    } catch (err) {
      stop();
      throw err;
    }
  }

  /** Hands a logged event to the trace's live watchers, and notes it so the follower skips it. */
  private deliver(traceId: string, event: WatchEvent): void {
    const followed = this.followed.get(traceId);
    if (followed && event.event_id > followed.delivered) followed.delivered = event.event_id;
    for (const listener of this.listeners.get(traceId) ?? []) listener(event);
  }

  /** Starts reading the trace's log for other processes' events after `from`, unless already doing so. */
  private follow(traceId: string, from: number): void {
    const ms = this.options.followMs ?? FOLLOW_MS;
    if (ms <= 0 || this.followed.has(traceId)) return;
    const followed: Followed = { delivered: from, timer: undefined };
    this.followed.set(traceId, followed);
    const look = () => {
      // Under the trace's order, so what it finds and this hub's own publishes reach watchers in id order.
      void this.order
        .run(traceId, () => this.readForeign(traceId, followed))
        .then(
          () => true,
          // A deleted trace or a closed store ends the following; anything else is tried again.
          (err: unknown) => !isArborError(err, "session_not_found") && !isArborError(err, "store_closed"),
        )
        .then((more) => {
          if (!more || this.followed.get(traceId) !== followed) return;
          followed.timer = setTimeout(look, ms);
          followed.timer.unref?.();
        });
    };
    followed.timer = setTimeout(look, ms);
    followed.timer.unref?.();
  }

  private unfollow(traceId: string): void {
    const followed = this.followed.get(traceId);
    if (followed?.timer) clearTimeout(followed.timer);
    this.followed.delete(traceId);
  }

  /** Delivers the watch events logged after what was delivered; throws once the trace or the store is gone. */
  private async readForeign(traceId: string, followed: Followed): Promise<void> {
    if ((await this.inner.lastEventId(traceId)) <= followed.delivered) return;
    for (;;) {
      const page = await this.inner.listEvents(traceId, { after: followed.delivered, limit: PAGE });
      for (const record of page) {
        if (WATCH_EVENT_NAMES.has(record.type)) this.deliver(traceId, watchEventFromRecord(record));
        followed.delivered = Math.max(followed.delivered, record.id);
      }
      if (page.length < PAGE || this.followed.get(traceId) !== followed) return;
    }
  }
}
