import type { ModelInfo } from "../llm/catalog.js";
import type { TokenUsage } from "../model/message.js";

/** The most output a step is assumed to need when the model allows more (more would leave a large-output model no room for its prompt). */
export const OUTPUT_TOKEN_MAX = 32_000;

export type ModelLimit = ModelInfo["limit"];

/** The prompt room of a model: `limit.input`, else the context less the output it may need. */
export function usableTokens(limit: ModelLimit): number {
  return limit.input || limit.context - Math.min(limit.output, OUTPUT_TOKEN_MAX);
}

/** A step's tokens as the overflow check counts them: `input` is the prompt's uncached tokens, `cacheRead` the cached ones. */
export interface OverflowCount {
  input: number;
  cacheRead: number;
  output: number;
}

/** `input + cache.read + output > usable`: the next prompt holds all of them. A model with no known context never overflows. */
export function isOverflow(count: OverflowCount, limit: ModelLimit): boolean {
  if (limit.context === 0) return false;
  return count.input + count.cacheRead + count.output > usableTokens(limit);
}

/**
 * A step's usage in those terms. The AI SDK's `inputTokens.total` (our `input`) already counts
 * cached tokens, so they are split out here rather than added twice.
 */
export function overflowCount(usage: TokenUsage): OverflowCount {
  return {
    input: Math.max(0, usage.input - usage.cacheRead),
    cacheRead: Math.min(usage.cacheRead, usage.input),
    output: usage.output,
  };
}

/** Tokens the next prompt holds after a step: everything the step saw plus what it wrote. */
export function contextTokensAfter(usage: TokenUsage): number {
  const c = overflowCount(usage);
  return c.input + c.cacheRead + c.output;
}

/** Phrases providers use for a prompt that does not fit; not `max_tokens`, which is about the output. */
const OVERFLOW_MESSAGE =
  /context[ _-]?(length|window)|maximum context|prompt is too long|input is too long|too many (input |prompt )?tokens|exceeds? (the )?(maximum|model'?s?) (context|input|prompt)|reduce the length of the (messages|prompt)|request too large/i;

/**
 * Whether a provider failure says the prompt did not fit (an APICallError with status 413, or a
 * message such as OpenAI's `context_length_exceeded`, Anthropic's "prompt is too long").
 */
export function isContextOverflowError(failure: { status?: number | undefined; message: string }): boolean {
  if (failure.status === 413) return true;
  if (failure.status !== undefined && failure.status !== 400 && failure.status !== 422) return false;
  return OVERFLOW_MESSAGE.test(failure.message);
}
