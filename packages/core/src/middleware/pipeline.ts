import { ArborError } from "../errors.js";
import type { MiddlewareContext, MiddlewareErrorHandler, RunMiddleware } from "../loop/run-types.js";
import type { RunEvent } from "../model/run-events.js";

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
      // The event handed back as it came (most do, for most events) is no promise: no lookup of `then` on it.
      if (out !== current && isThenable<Step>(out)) {
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
