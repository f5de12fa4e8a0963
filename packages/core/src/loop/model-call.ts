import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { classifyProviderError, type ProviderFailure, retryDelay } from "./retry.js";
import type { RunContext } from "./run-context.js";
import { type StepSink, type StepStreamResult, streamStep } from "./stream-step.js";

export interface ModelCallResult {
  stream: StepStreamResult;
  /** Set when the call failed for good (not retryable, or out of retries). */
  failure?: ProviderFailure;
  attempts: number;
}

/** What a model call needs from its caller: a run, or a compaction outside one. */
export type ModelCallEnv = Pick<RunContext, "clock" | "retry" | "signal">;

/** Streams the run's text and reasoning as events. */
export function eventSink(ctx: Pick<RunContext, "emit">): StepSink {
  return {
    text: (delta) => ctx.emit({ type: "token", content: delta }),
    reasoning: (delta) => ctx.emit({ type: "reasoning", content: delta }),
  };
}

export const SILENT_SINK: StepSink = { text: () => {}, reasoning: () => {} };

/**
 * One model step with retries (SPEC 4): retryable failures (429, 5xx, dropped connections) wait
 * `retry-after` or an exponential backoff with jitter, capped, then stream the step again. A
 * retried step streams its text again from the start; only the final attempt is persisted.
 */
export async function callModel(
  env: ModelCallEnv,
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  sink: StepSink,
): Promise<ModelCallResult> {
  for (let attempt = 0; ; attempt++) {
    const stream = await streamStep(model, options, sink);
    if (stream.aborted) return { stream, attempts: attempt + 1 };
    let error = stream.error;
    if (error === undefined && stream.finishReason === undefined) {
      error = new Error("The provider's stream ended without a finish event (the response was cut off or malformed).");
    }
    if (error === undefined) return { stream, attempts: attempt + 1 };
    const failure = classifyProviderError(error, env.clock.now());
    if (!failure.retryable || attempt >= env.retry.maxRetries) return { stream, failure, attempts: attempt + 1 };
    try {
      await env.clock.sleep(retryDelay(attempt, failure, env.retry, Math.random()), env.signal);
    } catch {
      return { stream: { ...stream, aborted: true, error: undefined }, attempts: attempt + 1 };
    }
  }
}
