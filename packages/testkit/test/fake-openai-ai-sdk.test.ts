import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import {
  delay,
  error,
  hang,
  malformed,
  manualClock,
  reasoning,
  type Script,
  scriptedModel,
  text,
  toolCall,
  usage,
} from "@arbor/testkit";
import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { callOptions, collect, failureOf, fakeOpenAIForTest, readUntil, withoutMetadata } from "./helpers.js";

// The path the runtime takes for `openai-compatible/<model>`: the provider's doStream over HTTP, usage included.
async function serve(script: Script) {
  const server = await fakeOpenAIForTest({ script });
  const provider = createOpenAICompatible({ name: "fake", baseURL: server.baseURL, includeUsage: true });
  return { server, model: provider.chatModel("fake-model") };
}

/**
 * The parts both transports must agree on. Block ids, provider metadata and where a text block closes differ by
 * design (openai-compatible closes its text block only when the stream ends; both orders are valid v4 streams).
 */
function essence(parts: LanguageModelV4StreamPart[]) {
  const boundaries = new Set(["text-start", "text-end", "reasoning-start", "reasoning-end"]);
  return withoutMetadata(parts)
    .filter((p) => !boundaries.has(p.type))
    .map((p) => {
      switch (p.type) {
        case "text-delta":
        case "reasoning-delta":
          return [p.type, p.delta];
        case "tool-input-start":
          return [p.type, p.id, p.toolName];
        case "tool-input-delta":
          return [p.type, p.id, p.delta];
        case "tool-call":
          return [p.type, p.toolCallId, p.toolName, p.input];
        case "finish":
          return [p.type, p.finishReason.unified, p.usage.inputTokens.total, p.usage.outputTokens.total];
        default:
          return [p.type];
      }
    });
}

describe("fake OpenAI server through @ai-sdk/openai-compatible doStream", () => {
  it("streams text, reasoning, tool calls and usage as provider parts", async () => {
    const { server, model } = await serve([
      [
        reasoning("plan it"),
        text("Reading.", { chunks: 2 }),
        toolCall("read", { path: "a.ts" }, { chunks: 4 }),
        usage({ inputTokens: 120, outputTokens: 30, reasoningTokens: 10, cacheReadTokens: 100 }),
      ],
    ]);
    const { stream } = await model.doStream(callOptions("read a.ts"));
    const parts = await collect(stream);
    const kinds = essence(parts);
    expect(kinds.filter((k) => k[0] === "reasoning-delta")).toEqual([["reasoning-delta", "plan it"]]);
    expect(kinds.filter((k) => k[0] === "text-delta").map((k) => k[1])).toEqual(["Read", "ing."]);
    expect(kinds).toContainEqual(["tool-call", "call_0_0", "read", '{"path":"a.ts"}']);
    const finish = parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: "finish" }>;
    expect(finish.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
    expect(finish.usage).toMatchObject({
      inputTokens: { total: 120, noCache: 20, cacheRead: 100 },
      outputTokens: { total: 30, text: 20, reasoning: 10 },
    });
    expect(server.requests[0]?.body).toMatchObject({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "read a.ts" }],
    });
  });

  it("plays a script the same way as the in-process scripted model", async () => {
    const script: Script = [
      [
        text("Let me check", { chunks: 3 }),
        toolCall("grep", { pattern: "x" }, { chunks: 2 }),
        usage({ inputTokens: 7, outputTokens: 5 }),
      ],
      [reasoning("done"), text("All good.")],
    ];
    const { model: overHttp } = await serve(script);
    const inProcess = scriptedModel(script);
    for (let step = 0; step < script.length; step++) {
      const viaHttp = essence(await collect((await overHttp.doStream(callOptions())).stream));
      const viaModel = essence(await collect((await inProcess.doStream(callOptions())).stream));
      expect(viaHttp).toEqual(viaModel);
    }
  });

  it("rejects doStream with a retryable APICallError carrying status and retry-after", async () => {
    const { model } = await serve([[error(429, { retryAfter: 2 })]]);
    const e = (await failureOf(model.doStream(callOptions()))) as APICallError;
    expect(APICallError.isInstance(e)).toBe(true);
    expect(e.statusCode).toBe(429);
    expect(e.isRetryable).toBe(true);
    expect(e.responseHeaders?.["retry-after"]).toBe("2");
  });

  it("turns malformed SSE into an error part and an error finish", async () => {
    const { model } = await serve([[text("a"), malformed()]]);
    const parts = withoutMetadata(await collect((await model.doStream(callOptions())).stream));
    expect(parts.some((p) => p.type === "error")).toBe(true);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "error" } });
  });

  it("ends a hanging stream with an AbortError when the caller aborts", async () => {
    const { server, model } = await serve([[text("partial"), hang()]]);
    const controller = new AbortController();
    const reader = (await model.doStream(callOptions("x", { abortSignal: controller.signal }))).stream.getReader();
    const seen = await readUntil(reader, (p) => p.type === "text-delta");
    expect(seen.at(-1)).toMatchObject({ delta: "partial" });
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
    while (server.active > 0) await new Promise((r) => setImmediate(r));
  });

  it("rejects a call hanging before its headers with an AbortError, and the server lets go", async () => {
    const { server, model } = await serve([[hang()]]);
    const controller = new AbortController();
    const call = model.doStream(callOptions("x", { abortSignal: controller.signal }));
    while (server.callCount === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    expect(await failureOf(call)).toMatchObject({ name: "AbortError" });
    while (server.active > 0) await new Promise((r) => setImmediate(r));
  });

  it("sends what precedes a mid-stream delay before waiting", async () => {
    const clock = manualClock();
    const server = await fakeOpenAIForTest({ script: [[text("early"), delay(1000), text("late")]], clock });
    const model = createOpenAICompatible({ name: "fake", baseURL: server.baseURL }).chatModel("m");
    const reader = (await model.doStream(callOptions())).stream.getReader();
    const before = await readUntil(reader, (p) => p.type === "text-delta");
    expect(before.at(-1)).toMatchObject({ delta: "early" });
    expect(clock.pending).toBe(1);
    const rest = readUntil(reader, (p) => p.type === "finish");
    await clock.advance(1000);
    expect((await rest).filter((p) => p.type === "text-delta")).toMatchObject([{ delta: "late" }]);
  });

  it("serves streamText end to end", async () => {
    const { model } = await serve([[text("Hello from HTTP", { chunks: 3 }), usage({ inputTokens: 4, outputTokens: 3 })]]);
    const result = streamText({ model, prompt: "hi" });
    expect(await result.text).toBe("Hello from HTTP");
    expect((await result.usage).outputTokens).toBe(3);
  });
});
