import { recordedResponses, startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Entry } from "../../src/model/entry.js";
import type { Message } from "../../src/model/message.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness } from "../loop/harness.js";
import { anthropicReplay, closeAfter, replay, serve } from "./recorded-servers.js";

function assistantMessages(path: Entry[]): Message[] {
  return path.flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
}

/** A tool the recorded OpenAI loop calls: arithmetic on two numbers. */
const calculator = defineTool({
  name: "calculator",
  description: "Arithmetic on two numbers.",
  input: z.object({ a: z.number(), b: z.number(), op: z.enum(["add", "subtract", "multiply", "divide"]) }),
  async execute({ a, b, op }) {
    const value = op === "add" ? a + b : op === "subtract" ? a - b : op === "multiply" ? a * b : a / b;
    return { output: String(value) };
  },
});

describe("recorded Anthropic streams through the runtime", () => {
  it("keeps a thinking block's signature and sends the signed block back on the next turn", async () => {
    const { server, runtime, store } = await anthropicReplay(
      "anthropic/anthropic-clear-thinking.1.chunks.txt",
      "anthropic/anthropic-text.chunks.txt",
    );
    const first = await collect(runtime.runs.run({ prompt: "Divide the previous result by 5." }));
    expect(first.result).toMatchObject({ status: "done", text: "925 ÷ 5 = 185" });

    const [answer] = assistantMessages(await store.getActivePath(first.result.sessionId));
    const reasoning = answer?.content.find((p) => p.type === "reasoning");
    expect(reasoning).toMatchObject({
      text: expect.stringContaining("925"),
      providerMetadata: { anthropic: { signature: expect.stringMatching(/^EvQBCkYICxgCKkAx/) } },
    });

    const second = await collect(runtime.runs.run({ sessionId: first.result.sessionId, prompt: "Thanks." }));
    expect(second.result.status).toBe("done");
    const body = server.requests[1]?.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    // The prompt is cached at the system prompt and at the last two messages.
    const system = (server.requests[1]?.body as { system: Array<Record<string, unknown>> } | undefined)?.system ?? [];
    expect(system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages.at(-2)?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages.at(0)?.content.at(-1)?.cache_control).toBeUndefined();
    const assistant = body.messages.find((m) => m.role === "assistant");
    expect(assistant?.content[0]).toMatchObject({
      type: "thinking",
      thinking: expect.stringContaining("925"),
      signature: expect.stringMatching(/^EvQBCkYICxgCKkAx/),
    });
  });

  it("counts cache reads from the wire and prices them at the cache rate", async () => {
    const { runtime } = await anthropicReplay("anthropic/anthropic-issue-5942-cache-read.chunks.txt");
    const { result } = await collect(runtime.runs.run({ prompt: "Summarize the document." }));
    expect(result.usage).toMatchObject({ input: 18_642, cacheRead: 18_639 });
    // claude-sonnet-4-5: $3 per million input, $0.30 per million cache reads, $15 per million output.
    const expected = (3 * 3 + 18_639 * 0.3 + result.usage.output * 15) / 1e6;
    expect(result.cost).toBeCloseTo(expected, 9);
  });
});

describe("recorded OpenAI Responses streams through the runtime", () => {
  it("keeps a reasoning item that has encrypted content and no summary, and sends it back", async () => {
    const { server, runtime, store } = await replay("openai/gpt-5.2", "openai-responses", [
      "openai/openai-issue-11239.1.chunks.txt",
      "openai/openai-issue-11239.2.chunks.txt",
    ]);
    const { result } = await collect(runtime.runs.run({ prompt: "Look up the verification code for issue-11239." }));
    expect(result.status).toBe("done");

    const [call] = assistantMessages(await store.getActivePath(result.sessionId));
    expect(call?.content[0]).toMatchObject({
      type: "reasoning",
      text: "",
      providerMetadata: {
        openai: { itemId: expect.stringMatching(/^rs_/), reasoningEncryptedContent: expect.stringMatching(/^gAAAA/) },
      },
    });
    const input = (server.requests[1]?.body as { input: Array<Record<string, unknown>> } | undefined)?.input ?? [];
    const sentBack = input.find((item) => item.type === "reasoning" || item.type === "item_reference");
    expect(sentBack).toBeDefined();
    if (sentBack?.type === "reasoning") expect(sentBack.encrypted_content).toMatch(/^gAAAA/);
  });

  it("runs a recorded four-response tool loop with encrypted reasoning to its answer", async () => {
    const server = await serve({
      wire: "openai-responses",
      replies: recordedResponses("openai-responses", "openai/openai-reasoning-encrypted-content.1.chunks.txt"),
    });
    expect(server.requests).toHaveLength(0);
    const env = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    const { runtime, store } = await harness({ env, model: "openai/gpt-5.1-codex-max", tools: [calculator] });
    const { result } = await collect(runtime.runs.run({ prompt: "Compute ((12 + 7) * 3) * 10 with the calculator." }));
    expect(result).toMatchObject({ status: "done", text: "The final result is **570**." });
    expect(server.callCount).toBe(4);

    const path = await store.getActivePath(result.sessionId);
    const calls = assistantMessages(path).flatMap((m) => m.content.filter((p) => p.type === "tool-call"));
    expect(calls.map((c) => c.input)).toEqual([
      { a: 12, b: 7, op: "add" },
      { a: 19, b: 3, op: "multiply" },
      { a: 57, b: 10, op: "multiply" },
    ]);
    const results = path.flatMap((e) =>
      e.type === "message" && e.message.role === "tool" ? e.message.content.map((p) => p.output) : [],
    );
    expect(results).toEqual([
      { type: "text", value: "19" },
      { type: "text", value: "57" },
      { type: "text", value: "570" },
    ]);
    // Every later request carries the first response's reasoning item, with its encrypted content.
    for (const request of server.requests.slice(1)) {
      const input = (request.body as { input: Array<Record<string, unknown>> }).input;
      expect(input.some((item) => item.type === "reasoning" || item.type === "item_reference")).toBe(true);
    }
  });
});

/** The tool the recorded Gemini turn calls. */
const weather = defineTool({
  name: "weather",
  description: "The weather at a place.",
  input: z.object({ location: z.string() }),
  async execute({ location }) {
    return { output: `Sunny in ${location}, 18°C.` };
  },
});

type GeminiContent = { role: string; parts: Array<Record<string, unknown>> };

describe("recorded Gemini streams through the runtime", () => {
  it("sends a function call back with its thought signature, and a signed text part on the next turn", async () => {
    const { server, runtime, store } = await replay(
      "google/gemini-3-pro-preview",
      "gemini",
      [
        "google/google-tool-call-gemini3.chunks.txt",
        "google/google-reasoning-gemini3.chunks.txt",
        "google/google-reasoning-gemini3.chunks.txt",
      ],
      { tools: [weather] },
    );
    const first = await collect(runtime.runs.run({ prompt: "What is the weather in San Francisco?" }));
    expect(first.result.status).toBe("done");
    expect(server.requests[0]?.path).toBe("/v1beta/models/gemini-3-pro-preview:streamGenerateContent");

    const [call] = assistantMessages(await store.getActivePath(first.result.sessionId));
    expect(call?.content.find((p) => p.type === "tool-call")).toMatchObject({
      toolName: "weather",
      input: { location: "San Francisco" },
      providerMetadata: { google: { thoughtSignature: expect.stringMatching(/^EpEgCo4gAb4/) } },
    });
    const contents = (request: number) =>
      (server.requests[request]?.body as { contents: GeminiContent[] } | undefined)?.contents ?? [];
    const model = contents(1).find((c) => c.role === "model");
    expect(model?.parts.find((p) => "functionCall" in p)).toMatchObject({
      functionCall: { name: "weather", args: { location: "San Francisco" } },
      thoughtSignature: expect.stringMatching(/^EpEgCo4gAb4/),
    });

    await collect(runtime.runs.run({ sessionId: first.result.sessionId, prompt: "And how many r's are in strawberry?" }));
    const signed = contents(2)
      .flatMap((c) => (c.role === "model" ? c.parts : []))
      .filter((p) => "thoughtSignature" in p);
    expect(signed.map((p) => String(p.thoughtSignature).slice(0, 10))).toEqual(["EpEgCo4gAb", "EpAICo0IAb"]);
  });
});

describe("providers that speak Chat Completions, over the fake OpenAI-compatible server", () => {
  it.each([
    ["groq/llama-3.3-70b-versatile", "GROQ_API_KEY", "GROQ_BASE_URL"],
    ["deepseek/deepseek-chat", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL"],
    ["openrouter/anthropic/claude-sonnet-4.5", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL"],
    ["mistral/mistral-large-latest", "MISTRAL_API_KEY", "MISTRAL_BASE_URL"],
  ])("%s runs a tool loop with its own key and base URL", async (ref, keyVariable, urlVariable) => {
    const server = closeAfter(
      await startFakeOpenAI({
        script: [
          [toolCall("weather", { location: "Oslo" }, { id: "call_1" }), usage({ inputTokens: 20, outputTokens: 5 })],
          [text("Sunny."), usage({ inputTokens: 40, outputTokens: 2 })],
        ],
      }),
    );
    const env = { [keyVariable]: "test-key", [urlVariable]: server.baseURL };
    const { runtime } = await harness({ env, model: ref, tools: [weather] });
    const { result } = await collect(runtime.runs.run({ prompt: "Weather in Oslo?" }));
    expect(result).toMatchObject({ status: "done", text: "Sunny." });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer test-key", "Bearer test-key"]);
    const second = server.requests[1]?.body as { model: string; messages: Array<{ role: string }> } | undefined;
    expect(second?.model).toBe(ref.slice(ref.indexOf("/") + 1));
    expect(second?.messages.map((m) => m.role)).toContain("tool");
  });
});

describe("xAI over the Responses wire", () => {
  it("answers from a recorded Responses stream with xAI's own key and base URL", async () => {
    const { server, runtime } = await replay("xai/grok-4", "openai-responses", [
      "openai/issue-16021-openai-zod-patterns-live.chunks.txt",
    ]);
    const { result } = await collect(runtime.runs.run({ prompt: "Say READY." }));
    expect(result).toMatchObject({ status: "done", text: "READY", usage: { input: 14_308, cacheRead: 14_080 } });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer test-key");
  });
});
