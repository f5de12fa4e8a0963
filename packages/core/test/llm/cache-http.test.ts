import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { FileCacheStore } from "../../src/llm/cache/file-cache-store.js";
import { LlmCache } from "../../src/llm/cache/llm-cache.js";
import { collect, harness, tempDir, transcript } from "../loop/harness.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe("the LLM cache over the real provider path (openai-compatible over HTTP)", () => {
  it("answers a repeated run from a file cache without a request, also after a restart", async () => {
    const server = await startFakeOpenAI({
      script: [
        [
          text("Let me look."),
          toolCall("read", { path: "a.txt" }, { id: "call_1", chunks: 3 }),
          usage({ inputTokens: 100, outputTokens: 20 }),
        ],
        [text("It says hello.", { chunks: 4 }), usage({ inputTokens: 150, outputTokens: 5 })],
      ],
    });
    servers.push(server);
    const config = resolveConfig([{ source: "test", value: { baseURL: server.url } }]);
    const dir = join(tempDir(), "llm-cache");
    const now = Date.parse("2026-03-01T10:00:00.000Z");
    const clock = { now: () => now, sleep: async () => {} };

    const first = await harness({
      config,
      model: "openai-compatible/fake",
      cache: new LlmCache({ store: new FileCacheStore(dir) }),
      clock,
    });
    writeFileSync(join(first.cwd, "a.txt"), "hello\n");
    const live = await collect(first.runtime.runs.run({ prompt: "read a.txt", cwd: first.cwd }));
    expect(live.result).toMatchObject({ status: "done", text: "It says hello." });
    expect(server.requests).toHaveLength(2);

    // Another runtime over the same cache directory: a process restarted.
    const cache = new LlmCache({ store: new FileCacheStore(dir) });
    const second = await harness({ config, model: "openai-compatible/fake", cache, clock });
    const replayed = await collect(second.runtime.runs.run({ prompt: "read a.txt", cwd: first.cwd }));
    expect(server.requests).toHaveLength(2);
    expect(replayed.result).toMatchObject({ status: "done", text: "It says hello.", usage: { input: 250, output: 25 } });
    expect(replayed.events.filter((e) => e.type === "llm_end").map((e) => e.cached)).toEqual([true, true]);
    expect(await transcript(second.store, replayed.result.sessionId)).toEqual(
      await transcript(first.store, live.result.sessionId),
    );
    expect(await cache.stats()).toMatchObject({ store: "file", hits: 2, misses: 0, entries: 2 });
  });
});
