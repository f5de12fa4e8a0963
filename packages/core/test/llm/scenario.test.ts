import { error, scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { ArborError } from "../../src/errors.js";
import { generate } from "../../src/llm/model-call.js";
import type { ModelResolver, ResolvedModel } from "../../src/llm/resolved-model.js";
import { DEFAULT_RETRY, type LoopClock } from "../../src/llm/retry.js";
import { scenarioModel, scenarioRetry } from "../../src/llm/scenario.js";

const info = { limit: { context: 1000, output: 100 } } as ResolvedModel["info"];
const resolved = (ref: string): ResolvedModel => ({ ref, model: scriptedModel([[text(ref)]]), info });
const run = resolved("testkit/run");

function resolver(pool: Record<string, string | Error>): () => ModelResolver {
  const pick = (ref: string | Error) => {
    if (ref instanceof Error) throw ref;
    return resolved(ref);
  };
  return () => ({
    resolve: (ref) => resolved(ref),
    forScenario: (scenario) => (pool[scenario] === undefined ? undefined : pick(pool[scenario]!)),
  });
}

describe("scenario models: one rule", () => {
  it("takes the pool's model, else the run's for compaction and replanning, else none for a title", () => {
    const pooled = resolver({ compaction: "p/c", replanner: "p/r", title: "p/t" });
    expect(scenarioModel(pooled, "compaction", run)?.ref).toBe("p/c");
    expect(scenarioModel(pooled, "replanner", run)?.ref).toBe("p/r");
    expect(scenarioModel(pooled, "title", run)?.ref).toBe("p/t");
    const empty = resolver({});
    expect(scenarioModel(empty, "compaction", run)).toBe(run);
    expect(scenarioModel(empty, "replanner", run)).toBe(run);
    expect(scenarioModel(empty, "title", run)).toBeUndefined();
    expect(scenarioModel(empty, "compaction", run, "a/own")?.ref).toBe("a/own");
  });

  it("the summary helper takes the pool's summary model, else the run's, and its failure is reported", () => {
    expect(scenarioModel(resolver({ summary: "p/s", compaction: "p/c" }), "summary", run)?.ref).toBe("p/s");
    expect(scenarioModel(resolver({ compaction: "p/c" }), "summary", run)).toBe(run);
    const broken = new ArborError("missing_api_key", "Set THE_KEY.");
    expect(() => scenarioModel(resolver({ summary: broken }), "summary", run)).toThrow("Set THE_KEY.");
    expect(scenarioRetry("summary", DEFAULT_RETRY)).toEqual(DEFAULT_RETRY);
  });

  it("a pool model that cannot be resolved fails a summary but only skips a replan or a title", () => {
    const broken = new ArborError("missing_api_key", "Set THE_KEY.");
    const pool = resolver({ compaction: broken, replanner: broken, title: broken });
    expect(() => scenarioModel(pool, "compaction", run)).toThrow("Set THE_KEY.");
    expect(scenarioModel(pool, "replanner", run)).toBeUndefined();
    expect(scenarioModel(pool, "title", run)).toBeUndefined();
  });

  it("summaries retry like the run; replans and titles do not wait", () => {
    expect(scenarioRetry("compaction", DEFAULT_RETRY)).toEqual(DEFAULT_RETRY);
    expect(scenarioRetry("replanner", DEFAULT_RETRY).maxRetries).toBe(0);
    expect(scenarioRetry("title", DEFAULT_RETRY).maxRetries).toBe(0);
  });
});

describe("generate: a whole model call with the step's retry policy", () => {
  const clock = (): LoopClock & { sleeps: number[] } => {
    const sleeps: number[] = [];
    return { sleeps, now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) };
  };

  it("retries a 429 after its retry-after, then answers", async () => {
    const c = clock();
    const model = scriptedModel([[error(429, { retryAfter: 2 })], [text("ok")]]);
    const result = await generate({ clock: c, retry: DEFAULT_RETRY, signal: new AbortController().signal }, model, {
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    expect(result.content).toMatchObject([{ type: "text", text: "ok" }]);
    expect(c.sleeps).toEqual([2000]);
  });

  it("throws at once without retries, and on a 400", async () => {
    const c = clock();
    const env = { clock: c, retry: { ...DEFAULT_RETRY, maxRetries: 0 }, signal: new AbortController().signal };
    await expect(generate(env, scriptedModel([[error(500)]]), { prompt: [] })).rejects.toThrow();
    await expect(
      generate({ ...env, retry: DEFAULT_RETRY }, scriptedModel([[error(400)], [text("never")]]), { prompt: [] }),
    ).rejects.toThrow();
    expect(c.sleeps).toEqual([]);
  });
});
