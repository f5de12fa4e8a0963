import { describe, expect, it } from "vitest";
import { isContextOverflowError, isOverflow, OUTPUT_TOKEN_MAX, overflowCount, usableTokens } from "../../src/context/overflow.js";

describe("overflow", () => {
  it("usable = limit.input, else context less min(output, OUTPUT_TOKEN_MAX)", () => {
    expect(OUTPUT_TOKEN_MAX).toBe(32_000);
    expect(usableTokens({ context: 128_000, output: 16_384 })).toBe(128_000 - 16_384);
    expect(usableTokens({ context: 400_000, output: 128_000 })).toBe(400_000 - 32_000);
    expect(usableTokens({ context: 200_000, output: 64_000, input: 150_000 })).toBe(150_000);
  });

  it("input + cache.read + output > usable, with the SDK's total input split so cache reads count once", () => {
    const limit = { context: 32_000, output: 4_000 };
    expect(isOverflow({ input: 20_000, cacheRead: 7_000, output: 1_000 }, limit)).toBe(false);
    expect(isOverflow({ input: 20_000, cacheRead: 7_000, output: 1_001 }, limit)).toBe(true);
    // The AI SDK reports input 27,000 of which 7,000 were cache reads: that is 27,000 prompt tokens, not 34,000.
    const count = overflowCount({ input: 27_000, cacheRead: 7_000, output: 500, reasoning: 0, cacheWrite: 0 });
    expect(count).toEqual({ input: 20_000, cacheRead: 7_000, output: 500 });
    expect(isOverflow(count, limit)).toBe(false);
    expect(isOverflow({ input: 10 ** 9, cacheRead: 0, output: 0 }, { context: 0, output: 1 } as never)).toBe(false);
  });

  it("recognizes providers' context-overflow errors and nothing else", () => {
    const yes = [
      {
        status: 400,
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      },
      { status: 400, message: "prompt is too long: 208000 tokens > 200000 maximum" },
      { status: 413, message: "Request Entity Too Large" },
      { status: undefined, message: "context_length_exceeded" },
      { status: 400, message: "Input exceeds the context window of this model" },
    ];
    const no = [
      { status: 400, message: "max_tokens is too large: 50000. This model supports at most 16384 completion tokens" },
      { status: 429, message: "Rate limit reached: too many tokens per minute" },
      { status: 500, message: "maximum context length exceeded" },
      { status: 401, message: "Invalid API key" },
    ];
    for (const f of yes) expect(isContextOverflowError(f), f.message).toBe(true);
    for (const f of no) expect(isContextOverflowError(f), f.message).toBe(false);
  });
});
