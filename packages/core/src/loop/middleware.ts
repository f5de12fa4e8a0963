import { ArborError } from "../errors.js";
import type { RunEvent } from "../model/run-events.js";
import type { Store } from "../store/store.js";
import type { LlmCallDetail, LlmCallLog } from "./llm-call-log.js";
import type { RunInput, RunResult } from "./types.js";

/** What a middleware sees of the run it is in (SPEC 8 `RunContext`, the part middleware may read). */
export interface MiddlewareContext {
  /** Unique per run, also across runs of one session. */
  readonly runId: string;
  readonly sessionId: string;
  readonly input: Readonly<RunInput>;
  readonly store: Store;
  readonly signal: AbortSignal;
  /** The runtime's clock, in ms. */
  now(): number;
  readonly startedAt: number;
  /** The run's result, set before `onRunEnd`. */
  readonly result: RunResult | undefined;
  /** The run's model calls with their whole prompts and outputs, when a middleware wants them (see `RunMiddleware.wants`). */
  readonly llmCalls: LlmCallLog | undefined;
}

/**
 * A run middleware (SPEC 8, seed 003 §3.7). The runtime applies a run's middleware in order to every
 * event of its stream: each `onEvent` gets what the previous one returned, and returns the event
 * (changed or not) to pass on, or null to suppress it (undefined passes it on unchanged). Every hook
 * may be async; events still reach the stream in order. A hook that throws is reported to the
 * runtime's `onMiddlewareError` and skipped (the event passes on as it came); it never fails the run.
 */
export interface RunMiddleware {
  /** Names the middleware in error reports. */
  readonly name?: string;
  /** `llmCalls`: log each model call of the run in `ctx.llmCalls` at this detail. */
  readonly wants?: { llmCalls?: LlmCallDetail };
  onRunStart?(ctx: MiddlewareContext): void | Promise<void>;
  onEvent?(event: RunEvent, ctx: MiddlewareContext): RunEvent | null | undefined | Promise<RunEvent | null | undefined>;
  /** After the last event (`done` or `error`) has passed; the run's result waits for it. */
  onRunEnd?(ctx: MiddlewareContext): void | Promise<void>;
}

export type MiddlewareErrorHandler = (error: ArborError) => void;

type Step = RunEvent | null | undefined;

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function";
}

/**
 * Runs a run's events through its middleware into the stream. Synchronous while every hook is (no
 * promise per event on the hot path of ten thousand token deltas); once a hook returns a promise,
 * later events queue behind it so order is kept, and the pipeline turns synchronous again when the
 * queue drains.
 */
export class MiddlewarePipeline {
  private pending: Promise<void> | undefined;

  constructor(
    private readonly middleware: readonly RunMiddleware[],
    private readonly ctx: MiddlewareContext,
    private readonly push: (event: RunEvent) => void,
    private readonly onError: MiddlewareErrorHandler,
  ) {}

  /** Calls every `onRunStart`; events emitted meanwhile wait for them. */
  start(): void {
    for (const mw of this.middleware) {
      if (!mw.onRunStart) continue;
      this.enqueue(() => this.guard(mw, "onRunStart", () => mw.onRunStart?.(this.ctx)));
    }
  }

  emit(event: RunEvent): void {
    if (this.pending) {
      this.enqueue(() => this.flow(event, 0));
      return;
    }
    const result = this.flow(event, 0);
    if (result) this.track(result);
  }

  /** Waits for queued events, then calls every `onRunEnd` in order. */
  async end(): Promise<void> {
    for (const mw of this.middleware) {
      if (!mw.onRunEnd) continue;
      this.enqueue(() => this.guard(mw, "onRunEnd", () => mw.onRunEnd?.(this.ctx)));
    }
    while (this.pending) await this.pending;
  }

  /** Passes `event` through the middleware from index `from`; a promise when a hook went async. */
  private flow(event: RunEvent, from: number): Promise<void> | undefined {
    let current: RunEvent = event;
    for (let i = from; i < this.middleware.length; i++) {
      const mw = this.middleware[i] as RunMiddleware;
      if (!mw.onEvent) continue;
      let out: Step | PromiseLike<Step>;
      try {
        out = mw.onEvent(current, this.ctx);
      } catch (err) {
        this.report(mw, "onEvent", err, current);
        continue;
      }
      if (isThenable<Step>(out)) {
        const before = current;
        return Promise.resolve(out).then(
          (next) => (next === null ? undefined : this.flow(next ?? before, i + 1)),
          (err: unknown) => {
            this.report(mw, "onEvent", err, before);
            return this.flow(before, i + 1);
          },
        );
      }
      if (out === null) return undefined;
      if (out !== undefined) current = out;
    }
    this.push(current);
    return undefined;
  }

  private enqueue(task: () => Promise<void> | undefined | void): void {
    const previous = this.pending ?? Promise.resolve();
    this.track(previous.then(task));
  }

  private track(promise: Promise<void>): void {
    // Nothing in a flow rejects (hooks are guarded); the catch only keeps a surprise from stalling the queue.
    const tracked: Promise<void> = promise
      .catch(() => {})
      .then(() => {
        if (this.pending === tracked) this.pending = undefined;
      });
    this.pending = tracked;
  }

  private async guard(mw: RunMiddleware, hook: string, call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.report(mw, hook, err);
    }
  }

  private report(mw: RunMiddleware, hook: string, err: unknown, event?: RunEvent): void {
    const name = mw.name ?? `middleware ${this.middleware.indexOf(mw) + 1}`;
    const on = event ? ` on a ${event.type} event` : "";
    const message = err instanceof Error ? err.message : String(err);
    try {
      this.onError(
        new ArborError("middleware_failed", `${name} failed in ${hook}${on} of run ${this.ctx.runId}: ${message}`, {
          middleware: name,
          hook,
          runId: this.ctx.runId,
        }),
      );
    } catch {
      // The error handler is the caller's; its failure is not the run's.
    }
  }
}
