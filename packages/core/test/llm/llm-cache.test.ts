import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { error, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { CACHE_HEADER, LlmCache } from "../../src/llm/cache/llm-cache.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { collect, harness, transcript, types } from "../loop/harness.js";

/** A fixed clock: the system prompt (which holds the date) and the cache's TTL see the same time on every run. */
function fixedClock(start = Date.parse("2026-03-01T10:00:00.000Z")) {
  let now = start;
  return { clock: { now: () => now, sleep: async () => {} }, advance: (ms: number) => (now += ms) };
}

const tokens = (events: readonly RunEvent[]) => events.flatMap((e) => (e.type === "token" ? [e.content] : []));
const llmEnds = (events: readonly RunEvent[]) => events.filter((e) => e.type === "llm_end");

describe("the LLM response cache in the runtime", () => {
  it("is off by default: the same prompt twice calls the model twice", async () => {
    const model = scriptedModel([[text("one")], [text("two")]]);
    const { runtime } = await harness({ model, clock: fixedClock().clock });
    expect(runtime.cache).toBeUndefined();
    await collect(runtime.runs.run({ prompt: "hi" }));
    const second = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(second.result.text).toBe("two");
    expect(model.callCount).toBe(2);
    expect(llmEnds(second.events)[0]).not.toHaveProperty("cached");
  });

  it("replays a whole tool-calling run from the cache through the streaming path, and marks the hits", async () => {
    const model = scriptedModel([
      [
        text("Let me read it.", { chunks: 3 }),
        toolCall("read", { path: "a.txt" }, { id: "c1" }),
        usage({ inputTokens: 10, outputTokens: 4 }),
      ],
      [text("It says hello.", { chunks: 4 }), usage({ inputTokens: 20, outputTokens: 3 })],
    ]);
    const { clock } = fixedClock();
    const cache = new LlmCache({ now: clock.now });
    const { runtime, store, cwd } = await harness({ model, cache, clock });
    writeFileSync(join(cwd, "a.txt"), "hello\n");

    const first = await collect(runtime.runs.run({ prompt: "What does a.txt say?" }));
    expect(first.result.status).toBe("done");
    expect(llmEnds(first.events).map((e) => e.cached)).toEqual([false, false]);
    expect(await cache.stats()).toMatchObject({ store: "memory", hits: 0, misses: 2, writes: 2, entries: 2 });

    // A new session, the same prompt: both steps are answered from the cache; the tool still runs for real.
    const second = await collect(runtime.runs.run({ prompt: "What does a.txt say?" }));
    expect(model.callCount).toBe(2);
    expect(second.result).toMatchObject({ status: "done", text: "It says hello.", steps: 2, usage: { input: 30, output: 7 } });
    expect(types(second.events)).toEqual(types(first.events));
    expect(tokens(second.events)).toEqual(tokens(first.events));
    expect(tokens(second.events)).toHaveLength(7);
    expect(llmEnds(second.events).map((e) => e.cached)).toEqual([true, true]);
    expect(second.events.find((e) => e.type === "tool_end")).toMatchObject({ tool: "read", is_error: false });
    expect(await transcript(store, second.result.sessionId)).toEqual(await transcript(store, first.result.sessionId));
    const stats = await cache.stats();
    expect(stats).toMatchObject({ hits: 2, misses: 2, writes: 2, entries: 2 });
    expect(stats.bytes).toBeGreaterThan(200);

    expect(await cache.clear()).toBe(2);
    expect(await cache.stats()).toMatchObject({ entries: 0, bytes: 0, hits: 2 });
  });

  it("expires recordings after the TTL", async () => {
    const model = scriptedModel([[text("first")], [text("second")]]);
    const { clock, advance } = fixedClock();
    const cache = new LlmCache({ ttlSeconds: 60, now: clock.now });
    const { runtime } = await harness({ model, cache, clock });
    await collect(runtime.runs.run({ prompt: "hi" }));
    advance(59_000);
    expect((await collect(runtime.runs.run({ prompt: "hi" }))).result.text).toBe("first");
    advance(2_000);
    // Same day, so the same system prompt: only the TTL makes this a miss.
    expect((await collect(runtime.runs.run({ prompt: "hi" }))).result.text).toBe("second");
    expect(await cache.stats()).toMatchObject({ hits: 1, misses: 2, entries: 1 });
  });

  it("never records a call that failed or was aborted", async () => {
    const model = scriptedModel([
      [text("partial"), error(500, { at: "part", message: "boom" })],
      [text("ok")],
      [text("ok again")],
    ]);
    const { clock } = fixedClock();
    const cache = new LlmCache({ now: clock.now });
    const { runtime } = await harness({ model, cache, clock, retry: { maxRetries: 0 } });
    const failed = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(failed.result.status).toBe("error");
    expect(await cache.stats()).toMatchObject({ writes: 0, entries: 0 });
    // The next identical request goes to the model, not to a recording of the failure.
    expect((await collect(runtime.runs.run({ prompt: "hi" }))).result.text).toBe("ok");
    expect((await collect(runtime.runs.run({ prompt: "hi" }))).result.text).toBe("ok");
    expect(model.callCount).toBe(2);
  });

  it("keys on the model: another model's answer is not replayed", async () => {
    const { clock } = fixedClock();
    const cache = new LlmCache({ now: clock.now });
    const a = scriptedModel([[text("from a")]], { provider: "openai", modelId: "gpt-4o" });
    const b = scriptedModel([[text("from b")]], { provider: "openai", modelId: "gpt-4o-mini" });
    const { runtime } = await harness({ cache, clock });
    expect((await collect(runtime.runs.run({ prompt: "hi", model: a }))).result.text).toBe("from a");
    expect((await collect(runtime.runs.run({ prompt: "hi", model: b }))).result.text).toBe("from b");
    expect((await collect(runtime.runs.run({ prompt: "hi", model: a }))).result.text).toBe("from a");
    expect(await cache.stats()).toMatchObject({ hits: 1, misses: 2 });
  });

  it("is made by the runtime from the config (ENABLE_LLM_CACHE) as a file cache under ARBOR_HOME", async () => {
    const model = scriptedModel([[text("cached answer")]]);
    const { clock } = fixedClock();
    const config = resolveConfig([{ source: "test", value: { cache: { enabled: true, ttl: 3600 } } }]);
    const { runtime, home } = await harness({ model, config, clock });
    expect(runtime.cache?.store.kind).toBe("file");
    expect(runtime.cache?.ttlSeconds).toBe(3600);
    await collect(runtime.runs.run({ prompt: "hi" }));
    const again = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(again.result.text).toBe("cached answer");
    expect(llmEnds(again.events)[0]?.cached).toBe(true);
    expect((runtime.cache?.store as { path?: string } | undefined)?.path).toBe(join(home, "cache", "llm", "llm.jsonl"));
    // `cache: false` wins over the config.
    const off = await harness({ model: scriptedModel([[text("x")]]), config, clock, cache: false });
    expect(off.runtime.cache).toBeUndefined();
  });

  it("serves doGenerate from recordings made by doStream, and marks both", async () => {
    const cache = new LlmCache();
    const inner = scriptedModel([[text("streamed text"), toolCall("read", { path: "x" }, { id: "t1" })]]);
    const model = cache.wrap(inner, "testkit/scripted");
    expect(cache.wrap(inner, "testkit/scripted")).toBe(model);
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];
    const live = await model.doStream({ prompt });
    expect(live.response?.headers?.[CACHE_HEADER]).toBe("miss");
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of live.stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) parts.push(part);
    const generated = await model.doGenerate({ prompt });
    expect(generated.response?.headers?.[CACHE_HEADER]).toBe("hit");
    expect(generated.providerMetadata).toEqual({ arbor: { cache: "hit" } });
    expect(generated.content).toEqual([
      { type: "text", text: "streamed text" },
      { type: "tool-call", toolCallId: "t1", toolName: "read", input: '{"path":"x"}' },
    ]);
    const replay = await model.doStream({ prompt });
    const replayed: LanguageModelV4StreamPart[] = [];
    for await (const part of replay.stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) replayed.push(part);
    // Dates come back as Dates; only the finish part carries the mark.
    expect(replayed.slice(0, -1)).toEqual(parts.slice(0, -1));
    expect(replayed.at(-1)).toMatchObject({ type: "finish", providerMetadata: { arbor: { cache: "hit" } } });
    expect(inner.callCount).toBe(1);
  });
});
