import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { Summarizer } from "../../src/context/summarizer.js";

/** A clock the test moves: each model call "takes" 700 ms. */
function summarizer() {
  let now = 10_000;
  const s = new Summarizer({
    model: {
      ref: "testkit/summary",
      model: scriptedModel([
        () => {
          now += 700;
          return [text("first")];
        },
        () => {
          now += 700;
          return [text("second")];
        },
      ]),
      info: { limit: { context: 100_000, output: 4_000 } },
    },
    count: (t) => t.length,
    clock: { now: () => now, sleep: async () => {} },
    retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0, jitter: 0, streamIdleTimeoutMs: 0 },
    signal: new AbortController().signal,
  });
  return s;
}

describe("the summarizer's duration (a compaction's span on the timeline)", () => {
  it("is 0 before any call and runs from the first call's start to the last call's end", async () => {
    const s = summarizer();
    expect(s.durationMs).toBe(0);
    await s.complete("summarize this");
    expect(s.durationMs).toBe(700);
    await s.complete("and this");
    expect(s.durationMs).toBe(1_400);
  });
});
