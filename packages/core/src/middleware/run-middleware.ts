import type { DebugLevel } from "../events/debug-records.js";
import { type LlmCallDetail, LlmCallLog } from "../llm/llm-call-log.js";
import { type ModelWrapper, wrapModelOption, wrapResolver } from "../llm/model-wrapper.js";
import type { RunEventInput } from "../loop/run-context.js";
import type { RunDeps } from "../loop/run-deps.js";
import type { MiddlewareContext, MiddlewareErrorHandler, RunMiddleware } from "../loop/run-types.js";
import type { ModelResolver, RunInput, RunResult } from "../loop/types.js";
import type { RunEvent } from "../model/run-events.js";
import { cacheMarkMiddleware } from "./cache-mark.js";
import { DebugMiddleware } from "./debug-middleware.js";
import { MiddlewarePipeline } from "./pipeline.js";

/** A run's middleware, in the order they apply: the runtime's own marks, debug, the runtime's, the run's. */
export function middlewareFor(opts: {
  cached: boolean;
  debug: DebugLevel | undefined;
  runtime: readonly RunMiddleware[] | undefined;
  run: readonly RunMiddleware[] | undefined;
}): RunMiddleware[] {
  return [
    ...(opts.cached ? [cacheMarkMiddleware()] : []),
    // First after the marks, so it records what the loop produced before others reshape it.
    ...(opts.debug && opts.debug !== "off" ? [new DebugMiddleware({ level: opts.debug })] : []),
    ...(opts.runtime ?? []),
    ...(opts.run ?? []),
  ];
}

/**
 * The event as the stream carries it, with its session. Streamed deltas are copied at a site of their
 * own: one copy site seeing every event's shape goes megamorphic and copies several times slower, and
 * a stream is almost all deltas.
 */
function withSessionId(event: RunEventInput, sessionId: string): RunEvent {
  if (event.type === "token" || event.type === "reasoning") return { ...event, session_id: sessionId } as RunEvent;
  return { ...event, session_id: sessionId } as RunEvent;
}

export interface RunPlumbing {
  /** The run's dependencies and input, with its models reporting to the call log when a middleware wants it. */
  deps: RunDeps;
  input: RunInput;
  emit(event: RunEventInput): void;
  /** Call after the last event: gives middleware the result and waits for every `onRunEnd`. */
  end(result: RunResult): Promise<void>;
}

function mostDetail(middleware: readonly RunMiddleware[]): LlmCallDetail | undefined {
  let detail: LlmCallDetail | undefined;
  for (const mw of middleware) {
    const wanted = mw.wants?.llmCalls;
    if (wanted === "full") return "full";
    if (wanted === "meta") detail = "meta";
  }
  return detail;
}

/**
 * Connects one run to its middleware: events go through the pipeline into the stream, and
 * when a middleware reads model calls, the run's models are wrapped to log them. With no middleware,
 * events go straight to the stream and nothing is wrapped.
 */
export function plumbRun(opts: {
  deps: RunDeps;
  input: RunInput;
  runId: string;
  signal: AbortSignal;
  sessionId: () => string;
  push: (event: RunEvent) => void;
  middleware: readonly RunMiddleware[];
  onError: MiddlewareErrorHandler;
  /** The runtime's model wrapper, for a model instance given with the run (strings are wrapped by the resolver). */
  wrap?: ModelWrapper | undefined;
}): RunPlumbing {
  const { deps, push, sessionId, wrap } = opts;
  const input =
    wrap && opts.input.model !== undefined ? { ...opts.input, model: wrapModelOption(opts.input.model, wrap) } : opts.input;
  const withSession = (event: RunEventInput) => withSessionId(event, sessionId());
  if (opts.middleware.length === 0) {
    return { deps, input, emit: (event) => push(withSession(event)), end: async () => {} };
  }

  const detail = mostDetail(opts.middleware);
  const log = detail ? new LlmCallLog(detail, deps.clock.now) : undefined;
  let result: RunResult | undefined;
  const ctx: MiddlewareContext = {
    runId: opts.runId,
    get sessionId() {
      return sessionId();
    },
    input,
    store: deps.store,
    signal: opts.signal,
    now: () => deps.clock.now(),
    startedAt: deps.clock.now(),
    get result() {
      return result;
    },
    llmCalls: log,
  };
  const pipeline = new MiddlewarePipeline(opts.middleware, ctx, push, opts.onError);
  pipeline.start();

  let runDeps = deps;
  let runInput = input;
  if (log) {
    // Title calls run beside the first step and belong to no llm_start; they stay out of the log.
    const tap = (model: Parameters<LlmCallLog["wrap"]>[0], use: Parameters<LlmCallLog["wrap"]>[1]) =>
      use.scenario === "title" ? model : log.wrap(model, use);
    let models: ModelResolver | undefined;
    runDeps = {
      ...deps,
      models: () => {
        models ??= wrapResolver(deps.models(), tap);
        return models;
      },
      defaultModel: wrapModelOption(deps.defaultModel, tap),
    };
    runInput = input.model === undefined ? input : { ...input, model: wrapModelOption(input.model, tap) };
  }
  return {
    deps: runDeps,
    input: runInput,
    emit: (event) => pipeline.emit(withSession(event)),
    end: (final) => {
      result = final;
      return pipeline.end();
    },
  };
}
