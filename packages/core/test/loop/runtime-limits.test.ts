import { join } from "node:path";
import { hang, scriptedModel, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../src/config/resolve.js";
import type { Entry } from "../../src/model/entry.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness, tempDir, transcript } from "./harness.js";

describe("a provider stream that stalls", () => {
  it("is ended after the idle timeout and the step is retried", async () => {
    const model = scriptedModel([[text("I was saying"), hang()], [text("ok")]]);
    const { runtime, store } = await harness({ model, retry: { streamIdleTimeoutMs: 50 } });
    const handle = runtime.runs.run({ prompt: "hi" });
    const { result } = await collect(handle);
    expect(result.status).toBe("done");
    expect(model.remaining).toBe(0);
    expect(await transcript(store, handle.sessionId)).toEqual(["user: hi", "assistant: ok"]);
  });

  it("over HTTP, with the timeout from arbor.json, and fails with a clear error once out of retries", async () => {
    const server = await startFakeOpenAI({ script: [[text("Hel"), hang()], [text("Hel"), hang()], [text("ok")]] });
    try {
      const config = resolveConfig([{ source: "test", value: { baseURL: server.url, llm: { streamIdleTimeoutMs: 50 } } }]);
      const { runtime, store } = await harness({ config, model: "openai-compatible/fake", retry: { maxRetries: 1 } });
      const handle = runtime.runs.run({ prompt: "hi" });
      const { result } = await collect(handle);
      expect(result.status).toBe("error");
      expect(result.error?.message).toContain("streamIdleTimeoutMs");
      expect(await transcript(store, handle.sessionId)).toEqual(["user: hi", "assistant: Hel"]);
      const again = runtime.runs.run({ prompt: "again", sessionId: handle.sessionId });
      expect((await collect(again)).result.status).toBe("done");
    } finally {
      await server.close();
    }
  });
});

/** A tool that counts its runs and the most of them running at once; each run yields a few turns. */
function probeTool() {
  const seen = { runs: 0, running: 0, most: 0 };
  const tool = defineTool({
    name: "probe",
    description: "Counts.",
    input: z.object({ data: z.string().optional() }),
    execute: async () => {
      seen.runs++;
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      seen.running--;
      return { output: "probed" };
    },
  });
  return { tool, seen };
}

/** The tool results on the session's path, by call id. */
async function toolResults(store: Store, sessionId: string): Promise<Map<string, { error: boolean; text: string }>> {
  const path: Entry[] = await store.getActivePath(sessionId);
  const results = new Map<string, { error: boolean; text: string }>();
  for (const entry of path) {
    if (entry.type !== "message" || entry.message.role !== "tool") continue;
    for (const part of entry.message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      const text = output.type === "text" || output.type === "error-text" ? output.value : "";
      results.set(part.toolCallId, { error: output.type === "error-text", text });
    }
  }
  return results;
}

describe("tool calls of one step", () => {
  it("are capped per step (the rest answered with an error naming the cap) and run with bounded concurrency", async () => {
    const { tool, seen } = probeTool();
    const calls = Array.from({ length: 200 }, (_, i) => toolCall("probe", { data: String(i) }, { id: `c${i}` }));
    const model = scriptedModel([calls, [text("done")]]);
    const { runtime, store } = await harness({ model, tools: [tool] });
    const handle = runtime.runs.run({ prompt: "go" });
    const { result } = await collect(handle);
    expect(result.status).toBe("done");
    expect(seen.runs).toBe(64);
    expect(seen.most).toBeGreaterThan(1);
    expect(seen.most).toBeLessThanOrEqual(8);
    const results = await toolResults(store, handle.sessionId);
    expect(results.size).toBe(200);
    expect(results.get("c63")).toEqual({ error: false, text: "probed" });
    expect(results.get("c64")?.error).toBe(true);
    expect(results.get("c64")?.text).toContain("limit of 64 per step");
    expect(results.get("c199")?.text).toContain("200 tool calls");
  });

  it("answers 10 MB of arguments with a tool error the model sees, and the run goes on", async () => {
    const { tool, seen } = probeTool();
    const big = "x".repeat(10 * 1024 * 1024);
    const model = scriptedModel([
      [toolCall("probe", { data: big }, { id: "big" }), toolCall("probe", { data: "small" }, { id: "small" })],
      [text("ok")],
    ]);
    const { runtime, store } = await harness({ model, tools: [tool] });
    const handle = runtime.runs.run({ prompt: "go" });
    const { result } = await collect(handle);
    expect(result.status).toBe("done");
    expect(seen.runs).toBe(1);
    const results = await toolResults(store, handle.sessionId);
    expect(results.get("small")).toEqual({ error: false, text: "probed" });
    expect(results.get("big")?.error).toBe(true);
    expect(results.get("big")?.text).toContain(`${big.length + 11} bytes`);
    expect(results.get("big")?.text).toContain("limit of 1048576 bytes");
    const path = await store.getActivePath(handle.sessionId);
    const assistant = path.find((e) => e.type === "message" && e.message.role === "assistant");
    expect(JSON.stringify(assistant).length).toBeLessThan(10_000);
    expect(await transcript(store, handle.sessionId)).toContain("assistant: ok");
  });
});

describe("a run that never waits", () => {
  it("keeps its session past its lease's life: the loop gives the event loop a turn, so the lease's heartbeat runs", async () => {
    // A zero-latency model over SQLite (synchronous writes): without a turn now and then, the run held
    // the event loop from start to end, no renewal could run, and once two thirds of the lease's life
    // had passed its own writes found the lease stale (session_busy). The lease lives a second, so only
    // a stall of a third of a second between two turns fails the run; the run lasts well over the
    // two thirds of a second the lease is then fresh for (1,500 steps, ~1 ms each with nothing else on the core).
    const store = await openStore({ kind: "sqlite", file: join(tempDir(), "runs.db"), durability: "process", leaseTtlMs: 1000 });
    const steps = 1500;
    const script = Array.from({ length: steps }, (_, i) => [text(`step ${i}`), toolCall("tick", { n: i })]);
    const tick = defineTool({
      name: "tick",
      description: "Answers at once.",
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => ({ output: String(n) }),
    });
    const { runtime } = await harness({ store, model: scriptedModel([...script, [text("done")]]), tools: [tick] });
    const { result } = await collect(runtime.runs.run({ prompt: "go", maxTurns: steps + 10 }));
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("done");
  });
});
