import { startFakeOpenAI, text, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { collect, harness } from "../loop/harness.js";
import { anthropicReplay, closeAfter } from "./recorded-servers.js";

describe("what a manual compaction cost", () => {
  it("is priced from the catalog for a priced model", async () => {
    const { runtime } = await anthropicReplay("anthropic/anthropic-text.chunks.txt", "anthropic/anthropic-text.chunks.txt");
    const { result } = await collect(runtime.runs.run({ prompt: "hello" }));
    const compacted = await runtime.sessions.compact(result.sessionId);
    // anthropic-text: 12 input and 30 output tokens at $3 and $15 per million.
    expect(compacted.usage).toMatchObject({ input: 12, output: 30 });
    expect(compacted.cost).toBeCloseTo((12 * 3 + 30 * 15) / 1e6, 9);
    expect(compacted.costKnown).toBeUndefined();
  });

  it("is unknown, not $0, for a model without a price", async () => {
    const fake = closeAfter(
      await startFakeOpenAI({
        script: [
          [text("Hi."), usage({ inputTokens: 10, outputTokens: 2 })],
          [text("## Goal\nGreet."), usage({ inputTokens: 40, outputTokens: 5 })],
        ],
      }),
    );
    // A model the catalog does not know, so it has no price.
    const env = { DEEPSEEK_API_KEY: "k", DEEPSEEK_BASE_URL: fake.baseURL };
    const { runtime } = await harness({ env, model: "deepseek/unlisted-model" });
    const { result } = await collect(runtime.runs.run({ prompt: "hello" }));
    expect(result.costKnown).toBe(false);
    const compacted = await runtime.sessions.compact(result.sessionId);
    expect(compacted.usage).toMatchObject({ input: 40, output: 5 });
    expect(compacted.costKnown).toBe(false);
  });
});
