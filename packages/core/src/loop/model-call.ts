import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { classifyProviderError, type ProviderFailure, retryDelay } from "./retry.js";
import type { RunContext } from "./run-context.js";
import { type StepStreamResult, streamStep } from "./stream-step.js";

export interface ModelCallResult {
  stream: StepStreamResult;
  /** Set when the call failed for good (not retryable, or out of retries). */
  failure?: ProviderFailure;
  attempts: number;
}

/**
 * One model step with retries (SPEC 4): retryable failures (429, 5xx, dropped connections) wait
 * `retry-after` or an exponential backoff with jitter, capped, then stream the step again. A
 * retried step streams its text again from the start; only the final attempt is persisted.
 */
export async function callModel(ctx: RunContext, options: LanguageModelV4CallOptions): Promise<ModelCallResult> {
  for (let attempt = 0; ; attempt++) {
    const stream = await streamStep(ctx.model.model, options, {
      text: (delta) => ctx.emit({ type: "token", content: delta }),
      reasoning: (delta) => ctx.emit({ type: "reasoning", content: delta }),
    });
    if (stream.aborted) return { stream, attempts: attempt + 1 };
    let error = stream.error;
    if (error === undefined && stream.finishReason === undefined) {
      error = new Error("The provider's stream ended without a finish event (the response was cut off or malformed).");
    }
    if (error === undefined) return { stream, attempts: attempt + 1 };
    const failure = classifyProviderError(error, ctx.clock.now());
    if (!failure.retryable || attempt >= ctx.retry.maxRetries) return { stream, failure, attempts: attempt + 1 };
    try {
      await ctx.clock.sleep(retryDelay(attempt, failure, ctx.retry, Math.random()), ctx.signal);
    } catch {
      return { stream: { ...stream, aborted: true, error: undefined }, attempts: attempt + 1 };
    }
  }
}
