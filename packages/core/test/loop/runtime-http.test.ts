import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { error, scriptedModel, startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../src/config/resolve.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness, toolTurnTypes, transcript, types } from "./harness.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function fakeServer(script: Parameters<typeof startFakeOpenAI>[0]["script"]) {
  const server = await startFakeOpenAI({ script });
  servers.push(server);
  return { server, config: resolveConfig([{ source: "test", value: { baseURL: server.url } }]) };
}

describe("the real provider path (openai-compatible over HTTP)", () => {
  it("runs a tool-calling session end to end with usage and cost from the wire", async () => {
    const { server, config } = await fakeServer([
      [
        text("Let me look."),
        toolCall("read", { path: "a.txt" }, { id: "call_1", chunks: 3 }),
        usage({ inputTokens: 100, outputTokens: 20 }),
      ],
      [text("It says hello.", { chunks: 4 }), usage({ inputTokens: 150, outputTokens: 5 })],
    ]);
    const { runtime, store, cwd } = await harness({
      config: {
        ...config,
        models: { "openai-compatible/fake": { limit: { context: 8000, output: 1000 }, cost: { input: 1, output: 2 } } },
      },
      model: "openai-compatible/fake",
    });
    writeFileSync(join(cwd, "a.txt"), "hello\n");
    const handle = runtime.runs.run({ prompt: "read a.txt" });
    const { events, result } = await collect(handle);
    expect(types(events).filter((t) => t !== "token")).toEqual(toolTurnTypes(0, 0));
    expect(result).toMatchObject({ status: "done", steps: 2, text: "It says hello.", usage: { input: 250, output: 25 } });
    expect(result.cost).toBeCloseTo((250 * 1 + 25 * 2) / 1e6, 12);
    expect(events.find((e) => e.type === "llm_end")).toMatchObject({ input_tokens: 100, output_tokens: 20, total_tokens: 120 });
    expect(await transcript(store, handle.sessionId)).toEqual([
      "user: read a.txt",
      "assistant: Let me look. | call read",
      expect.stringMatching(/^tool: result .*hello/),
      "assistant: It says hello.",
    ]);
    // The second request carried the tool call and its result in Chat Completions form.
    const body = server.requests[1]?.body as { messages: Array<{ role: string; tool_calls?: unknown[]; tool_call_id?: string }> };
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(body.messages[3]?.tool_call_id).toBe("call_1");
  });

  it("honours retry-after from a 429 over HTTP", async () => {
    const { config } = await fakeServer([[error(429, { retryAfter: 2 })], [text("ok")]]);
    const sleeps: number[] = [];
    const { runtime } = await harness({
      config,
      model: "openai-compatible/fake",
      clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) },
    });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    expect(sleeps).toEqual([2000]);
  });

  it("an unreachable base URL is retried, then fails with a message naming the problem", async () => {
    const config = resolveConfig([{ source: "test", value: { baseURL: "http://127.0.0.1:9/v1" } }]);
    const sleeps: number[] = [];
    const { runtime, store } = await harness({
      config,
      model: "openai-compatible/fake",
      retry: { maxRetries: 2 },
      clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) },
    });
    const handle = runtime.runs.run({ prompt: "hi" });
    const { result } = await collect(handle);
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(/connect|ECONNREFUSED/i);
    expect(result.error?.message).toContain("127.0.0.1:9");
    expect(sleeps).toHaveLength(2);
    expect(await transcript(store, handle.sessionId)).toEqual(["user: hi"]);
  });
});

describe("tool output cap", () => {
  it("cuts an output over 50 KB, keeps the full text in the blob store and references it", async () => {
    const flood = defineTool({
      name: "flood",
      description: "Prints a lot.",
      input: z.object({}),
      execute: async () => ({ output: Array.from({ length: 5000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n") }),
    });
    const blobs = new MemoryBlobStore();
    const model = scriptedModel([[toolCall("flood", {})], [text("ok")]]);
    const { runtime, store } = await harness({ model, blobs, tools: new ToolRegistry({ blobs }).register(flood) });
    const handle = runtime.runs.run({ prompt: "flood" });
    await handle.result;
    const path = await store.getActivePath(handle.sessionId);
    const tool = path.find((e) => e.type === "message" && e.message.role === "tool");
    if (tool?.type !== "message") throw new Error("no tool message");
    const part = tool.message.content[0] as Record<string, unknown>;
    const output = (part.output as { value: string }).value;
    expect(Buffer.byteLength(output)).toBeLessThan(60 * 1024);
    expect(output.split("\n").length).toBeLessThanOrEqual(2100);
    expect(typeof part.fullOutputRef).toBe("string");
    const full = await blobs.get(part.fullOutputRef as string);
    expect(Buffer.from(full ?? []).toString()).toContain("line 4999");
  });
});
