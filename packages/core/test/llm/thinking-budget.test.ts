import { describe, expect, it } from "vitest";
import { envLayer } from "../../src/config/resolve.js";
import { effortForBudget, thinkingCallOptions } from "../../src/llm/thinking.js";
import { parseThinkingLevel, THINKING_LEVEL_HINT } from "../../src/model/entry.js";
import { collect, harness } from "../loop/harness.js";
import { anthropicReplay, replay, requestBody, serve } from "./recorded-servers.js";

const bodyOf = requestBody;

describe("a thinking token budget reaches each provider's request", () => {
  it("Anthropic: the budget is budget_tokens, and the session keeps it", async () => {
    const { server, runtime, store } = await anthropicReplay(
      "anthropic/anthropic-clear-thinking.1.chunks.txt",
      "anthropic/anthropic-text.chunks.txt",
    );
    const first = await collect(runtime.runs.run({ prompt: "Divide by 5.", thinking: 6000 }));
    expect(first.result.status).toBe("done");
    expect(bodyOf(server, 0).thinking).toEqual({ type: "enabled", budget_tokens: 6000 });
    await collect(runtime.runs.run({ sessionId: first.result.sessionId, prompt: "Again." }));
    expect(bodyOf(server, 1).thinking).toEqual({ type: "enabled", budget_tokens: 6000 });
    const path = await store.getActivePath(first.result.sessionId);
    expect(path.filter((e) => e.type === "thinking_level_change").map((e) => e.thinkingLevel)).toEqual([6000]);
  });

  it("Gemini: the budget is thinkingConfig.thinkingBudget, thoughts included", async () => {
    const { server, runtime } = await replay("google/gemini-2.5-pro", "gemini", ["google/google-reasoning-gemini3.chunks.txt"]);
    await collect(runtime.runs.run({ prompt: "hi", thinking: 2048 }));
    const config = bodyOf(server, 0).generationConfig as { thinkingConfig?: Record<string, unknown> };
    expect(config.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 2048 });
  });

  it("OpenAI: the budget becomes the effort of the range it falls in", async () => {
    const { server, runtime } = await replay("openai/gpt-5.2", "openai-responses", [
      "openai/openai-issue-11239.2.chunks.txt",
      "openai/openai-issue-11239.2.chunks.txt",
    ]);
    await collect(runtime.runs.run({ prompt: "hi", thinking: 2000 }));
    await collect(runtime.runs.run({ prompt: "hi", thinking: 30_000 }));
    expect(bodyOf(server, 0).reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(bodyOf(server, 1).reasoning).toEqual({ effort: "high", summary: "auto" });
  });

  it("a budget that is not a positive whole number is refused and writes nothing", async () => {
    const server = await serve({ wire: "openai-responses", replies: [] });
    const env = { OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.baseURL };
    const { runtime, store } = await harness({ env, model: "openai/gpt-5.2" });
    for (const bad of [0, -5, 1.5]) {
      const { result } = await collect(runtime.runs.run({ prompt: "hi", thinking: bad }));
      expect(result).toMatchObject({ status: "error", error: { code: "invalid_input" } });
      expect(result.error?.message).toContain("token budget");
    }
    expect((await store.listSessions({})).sessions).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });
});

describe("thinking budgets, pure", () => {
  it("maps budgets to efforts at the documented edges", () => {
    expect([512, 1024, 8191, 8192, 24_575, 24_576, 49_151, 49_152].map(effortForBudget)).toEqual([
      "minimal",
      "low",
      "low",
      "medium",
      "medium",
      "high",
      "high",
      "xhigh",
    ]);
  });

  it("sends a level as a level and a budget as each provider's budget option", () => {
    expect(thinkingCallOptions("high").reasoning).toBe("high");
    expect(thinkingCallOptions("high").providerOptions?.anthropic).toBeUndefined();
    const budget = thinkingCallOptions(10_000);
    expect(budget.reasoning).toBe("medium");
    expect(budget.providerOptions).toMatchObject({
      anthropic: { thinking: { type: "enabled", budgetTokens: 10_000 } },
      google: { thinkingConfig: { thinkingBudget: 10_000 } },
      bedrock: { reasoningConfig: { type: "enabled", budgetTokens: 10_000 } },
    });
  });

  it("reads --thinking as a level name or a whole number of tokens", () => {
    expect(["8000", " high ", "off", "0", "1.5", "-3", "lots", ""].map(parseThinkingLevel)).toEqual([
      8000,
      "high",
      "off",
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(THINKING_LEVEL_HINT).toBe("off, minimal, low, medium, high, xhigh, or a token budget such as 8000");
  });

  it("ARBOR_THINKING takes a budget as digits and a level as its name", () => {
    expect(envLayer({ ARBOR_THINKING: "8000" }).value).toEqual({ thinking: 8000 });
    expect(envLayer({ ARBOR_THINKING: "high" }).value).toEqual({ thinking: "high" });
  });
});
