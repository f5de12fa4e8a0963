import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import {
  classifyProviderError,
  type LoopClock,
  type ProviderFailure,
  type RetryNotice,
  type RetryOptions,
  retryDelay,
} from "./retry.js";
import { type StepSink, type StepStreamResult, streamStep } from "./stream-step.js";

export interface ModelCallResult {
  stream: StepStreamResult;
  /** Set when the call failed for good (not retryable, or out of retries). */
  failure?: ProviderFailure;
  attempts: number;
}

/** What a model call needs from its caller (a run, a compaction outside one): time, the retry policy, the abort. */
export interface ModelCallEnv {
  readonly clock: LoopClock;
  readonly retry: Required<RetryOptions>;
  readonly signal: AbortSignal;
  /** Told of each retry as its wait begins (a front end shows it, rather than sit silent). */
  readonly onRetry?: ((notice: RetryNotice) => void) | undefined;
}

export const SILENT_SINK: StepSink = { text: () => {}, reasoning: () => {} };

/**
 * One model step with retries, so a passing provider hiccup does not end the run: retryable failures (429, 5xx, dropped connections) wait
 * `retry-after` or an exponential backoff with jitter, capped, then stream the step again. A
 * retried step streams its text again from the start; only the final attempt is persisted. A
 * stream that stalls past `streamIdleTimeoutMs` counts as a dropped connection.
 */
export async function callModel(
  env: ModelCallEnv,
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  sink: StepSink,
): Promise<ModelCallResult> {
  for (let attempt = 0; ; attempt++) {
    const stream = await streamStep(model, options, sink, env.retry.streamIdleTimeoutMs);
    if (stream.aborted) return { stream, attempts: attempt + 1 };
    let error = stream.error;
    if (error === undefined && stream.finishReason === undefined) {
      error = new Error("The provider's stream ended without a finish event (the response was cut off or malformed).");
    }
    if (error === undefined) return { stream, attempts: attempt + 1 };
    const failure = classifyProviderError(error, env.clock.now());
    if (!failure.retryable || attempt >= env.retry.maxRetries) return { stream, failure, attempts: attempt + 1 };
    if (!(await waitToRetry(env, failure, attempt)))
      return { stream: { ...stream, aborted: true, error: undefined }, attempts: attempt + 1 };
  }
}

/** The waiting a failed attempt earns: false when it is not retried (not retryable, out of retries, aborted while waiting). */
async function waitToRetry(env: ModelCallEnv, failure: ProviderFailure, attempt: number): Promise<boolean> {
  if (!failure.retryable || attempt >= env.retry.maxRetries) return false;
  const delayMs = retryDelay(attempt, failure, env.retry, Math.random());
  try {
    env.onRetry?.({ attempt: attempt + 1, maxRetries: env.retry.maxRetries, delayMs, failure });
  } catch {
    // Telling is best effort: a listener that throws must not end the run.
  }
  try {
    await env.clock.sleep(delayMs, env.signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * One whole (not streamed) model call with the same retry policy as a step: the title, the
 * replanner. Throws the last failure; what a failure means (a fallback title, no replanning) is
 * the caller's to say.
 */
export async function generate(
  env: ModelCallEnv,
  model: LanguageModelV4,
  options: Omit<LanguageModelV4CallOptions, "abortSignal">,
): Promise<LanguageModelV4GenerateResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await model.doGenerate({ ...options, abortSignal: env.signal });
    } catch (err) {
      if (env.signal.aborted) throw err;
      if (!(await waitToRetry(env, classifyProviderError(err, env.clock.now()), attempt))) throw err;
    }
  }
}
