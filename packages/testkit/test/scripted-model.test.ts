import { APICallError, JSONParseError } from "@ai-sdk/provider";
import {
  delay,
  error,
  finish,
  hang,
  malformed,
  manualClock,
  reasoning,
  ScriptExhaustedError,
  scriptedModel,
  text,
  toolCall,
  usage,
} from "@arbor/testkit";
import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { callOptions, collect, failureOf, readUntil, withoutMetadata } from "./helpers.js";

const zeroUsage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

describe("scripted model stream parts", () => {
  it("opens with stream-start and response metadata, and plays text split into deltas", async () => {
    const model = scriptedModel([[text("Hello world", { chunks: 3 })]], { modelId: "m1" });
    expect(model.specificationVersion).toBe("v4");
    const { stream } = await model.doStream(callOptions());
    const parts = await collect(stream);
    expect(parts[0]).toEqual({ type: "stream-start", warnings: [] });
    expect(parts[1]).toMatchObject({ type: "response-metadata", id: "scripted-0", modelId: "m1" });
    expect(withoutMetadata(parts)).toEqual([
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: "Hel" },
      { type: "text-delta", id: "text-0", delta: "lo w" },
      { type: "text-delta", id: "text-0", delta: "orld" },
      { type: "text-end", id: "text-0" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: zeroUsage },
    ]);
  });

  it("takes explicit deltas and never splits a surrogate pair", async () => {
    const model = scriptedModel([[text(["a", "b"]), text("😀😀", { chunks: 4 })]]);
    const deltas = (await collect((await model.doStream(callOptions())).stream)).flatMap((p) =>
      p.type === "text-delta" ? [`${p.id}:${p.delta}`] : [],
    );
    expect(deltas).toEqual(["text-0:a", "text-0:b", "text-1:😀", "text-1:😀"]);
  });

  it("plays reasoning before text as separate blocks", async () => {
    const model = scriptedModel([[reasoning("think", { chunks: 2 }), text("answer")]]);
    const parts = withoutMetadata(await collect((await model.doStream(callOptions())).stream));
    expect(parts.slice(0, 4)).toEqual([
      { type: "reasoning-start", id: "reasoning-0" },
      { type: "reasoning-delta", id: "reasoning-0", delta: "th" },
      { type: "reasoning-delta", id: "reasoning-0", delta: "ink" },
      { type: "reasoning-end", id: "reasoning-0" },
    ]);
    expect(parts[4]).toEqual({ type: "text-start", id: "text-1" });
  });

  it("streams tool calls as input deltas then a tool-call, from an object or raw JSON text", async () => {
    const model = scriptedModel([
      [toolCall("read", { path: "a.txt" }, { chunks: 3 }), toolCall("bash", '{"command": "ls"', { id: "custom" })],
    ]);
    const parts = withoutMetadata(await collect((await model.doStream(callOptions())).stream));
    const input = '{"path":"a.txt"}';
    const fragments = parts.flatMap((p) => (p.type === "tool-input-delta" && p.id === "call_0_0" ? [p.delta] : []));
    expect(fragments).toHaveLength(3);
    expect(fragments.join("")).toBe(input);
    expect(parts[0]).toEqual({ type: "tool-input-start", id: "call_0_0", toolName: "read" });
    expect(parts[4]).toEqual({ type: "tool-input-end", id: "call_0_0" });
    expect(parts[5]).toEqual({ type: "tool-call", toolCallId: "call_0_0", toolName: "read", input });
    // Raw text is passed through untouched, invalid JSON included: the runtime must turn it into a tool error.
    expect(parts[9]).toEqual({ type: "tool-call", toolCallId: "custom", toolName: "bash", input: '{"command": "ls"' });
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" } });
  });

  it("reports scripted usage and finish reason in the finish part", async () => {
    const model = scriptedModel([
      [
        text("x"),
        usage({ inputTokens: 100, outputTokens: 20, reasoningTokens: 5, cacheReadTokens: 40, cacheWriteTokens: 7 }),
        finish("length"),
      ],
    ]);
    const parts = await collect((await model.doStream(callOptions())).stream);
    expect(parts.at(-1)).toEqual({
      type: "finish",
      finishReason: { unified: "length", raw: "length" },
      usage: {
        inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: 7 },
        outputTokens: { total: 20, text: 15, reasoning: 5 },
      },
    });
  });
});

describe("scripted model errors", () => {
  it("fails the call itself for an error before any output, like an HTTP error status", async () => {
    const model = scriptedModel([[error(429, { retryAfter: 3 })], [error(400, { message: "bad" })]]);
    const first = await failureOf(model.doStream(callOptions()));
    expect(APICallError.isInstance(first)).toBe(true);
    const e = first as APICallError;
    expect(e.statusCode).toBe(429);
    expect(e.isRetryable).toBe(true);
    expect(e.responseHeaders?.["retry-after"]).toBe("3");
    expect(JSON.parse(e.responseBody ?? "")).toMatchObject({ error: { code: "rate_limit_exceeded" } });
    await expect(model.doStream(callOptions())).rejects.toMatchObject({ statusCode: 400, isRetryable: false, message: "bad" });
  });

  it("breaks the stream after output for an error mid-stream", async () => {
    const model = scriptedModel([[text("partial"), error(503)]]);
    const reader = (await model.doStream(callOptions())).stream.getReader();
    const seen = await readUntil(reader, (p) => p.type === "text-end");
    expect(seen.some((p) => p.type === "text-delta" && p.delta === "partial")).toBe(true);
    await expect(reader.read()).rejects.toMatchObject({ statusCode: 503, isRetryable: true });
  });

  it("delivers every part queued before a mid-stream error, however long the step", async () => {
    const model = scriptedModel([[text("x".repeat(1000), { chunks: 1000 }), error(502)]]);
    const reader = (await model.doStream(callOptions())).stream.getReader();
    let deltas = 0;
    const failure = await failureOf(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value.type === "text-delta") deltas++;
      }
    });
    expect(deltas).toBe(1000);
    expect(failure).toMatchObject({ statusCode: 502 });
  });

  it("reports an in-stream error as an error part and finishes with reason error", async () => {
    const model = scriptedModel([[text("a"), error(500, { at: "part" })]]);
    const parts = withoutMetadata(await collect((await model.doStream(callOptions())).stream));
    const errorPart = parts.find((p) => p.type === "error");
    expect(APICallError.isInstance((errorPart as { error: unknown }).error)).toBe(true);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "error" } });
  });

  it("plays malformed output as a JSON parse error part", async () => {
    const model = scriptedModel([[malformed("{nope")]]);
    const parts = withoutMetadata(await collect((await model.doStream(callOptions())).stream));
    expect(parts[0]?.type).toBe("error");
    expect(JSONParseError.isInstance((parts[0] as { error: unknown }).error)).toBe(true);
    expect(parts[1]).toMatchObject({ type: "finish", finishReason: { unified: "error" } });
  });

  it("errors clearly when the script runs out", async () => {
    const model = scriptedModel([[text("only")]], { modelId: "tiny" });
    await collect((await model.doStream(callOptions())).stream);
    const failure = model.doStream(callOptions());
    await expect(failure).rejects.toBeInstanceOf(ScriptExhaustedError);
    await expect(failure).rejects.toThrow("scripted model tiny: call #2 but the script has only 1 step");
    expect(model.remaining).toBe(0);
  });
});

describe("scripted model time and aborts", () => {
  it("waits on the injected clock: a delay before output delays the call, one after it pauses the stream", async () => {
    const clock = manualClock();
    const model = scriptedModel([[delay(1000), text("a"), delay(500), text("b")]], { clock });
    let answered = false;
    const call = model.doStream(callOptions()).then((r) => {
      answered = true;
      return r;
    });
    await clock.whenSleeping();
    await clock.advance(999);
    expect(answered).toBe(false);
    await clock.advance(1);
    const reader = (await call).stream.getReader();
    await readUntil(reader, (p) => p.type === "text-end");
    await clock.whenSleeping();
    let finished = false;
    const rest = readUntil(reader, (p) => p.type === "finish").then((parts) => {
      finished = true;
      return parts;
    });
    await clock.advance(499);
    expect(finished).toBe(false);
    await clock.advance(1);
    const tail = await rest;
    expect(tail.filter((p) => p.type === "text-delta")).toEqual([{ type: "text-delta", id: "text-1", delta: "b" }]);
    expect(clock.pending).toBe(0);
  });

  it("rejects a hanging call with an AbortError when the signal fires", async () => {
    const model = scriptedModel([[hang()]]);
    const controller = new AbortController();
    const call = model.doStream(callOptions("hi", { abortSignal: controller.signal }));
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
  });

  it("keeps the output before a mid-stream hang and errors the stream with an AbortError on abort", async () => {
    const model = scriptedModel([[text("partial"), hang(), text("never")]]);
    const controller = new AbortController();
    const reader = (await model.doStream(callOptions("hi", { abortSignal: controller.signal }))).stream.getReader();
    const seen = await readUntil(reader, (p) => p.type === "text-end");
    expect(seen.filter((p) => p.type === "text-delta")).toEqual([{ type: "text-delta", id: "text-0", delta: "partial" }]);
    const next = reader.read();
    controller.abort(new Error("user pressed ctrl-c"));
    const failure = (await failureOf(next)) as Error;
    expect(failure.name).toBe("AbortError");
    expect((failure.cause as Error).message).toBe("user pressed ctrl-c");
  });

  it("aborts a delay too, and an already-aborted signal claims no step", async () => {
    const clock = manualClock();
    const model = scriptedModel([[delay(10_000), text("late")], [text("second")]], { clock });
    const aborted = AbortSignal.abort();
    await expect(model.doStream(callOptions("x", { abortSignal: aborted }))).rejects.toMatchObject({ name: "AbortError" });
    expect(model.callCount).toBe(0);
    const controller = new AbortController();
    const call = model.doStream(callOptions("x", { abortSignal: controller.signal }));
    await clock.whenSleeping();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(clock.pending).toBe(0);
  });

  it("releases a hang when the reader cancels the stream", async () => {
    const model = scriptedModel([[text("a"), hang()]]);
    const reader = (await model.doStream(callOptions())).stream.getReader();
    await readUntil(reader, (p) => p.type === "text-end");
    await reader.cancel();
    expect(model.callCount).toBe(1);
  });
});

describe("scripted model bookkeeping", () => {
  it("records each call's prompt and options, copying the prompt array", async () => {
    const model = scriptedModel([[text("1")], [text("2")]]);
    const prompt = callOptions("first").prompt;
    await model.doStream({ prompt, temperature: 0.5 });
    prompt.push({ role: "assistant", content: [{ type: "text", text: "1" }] });
    await model.doStream({ prompt, maxOutputTokens: 10 });
    expect(model.calls.map((c) => c.prompt.length)).toEqual([1, 2]);
    expect(model.calls[0]?.options.temperature).toBe(0.5);
    expect(model.calls[1]).toMatchObject({ index: 1, method: "stream", options: { maxOutputTokens: 10 } });
  });

  it("computes a step from the call when the step is a function", async () => {
    const model = scriptedModel([
      (call) => {
        const options = call.source === "model" ? (call.options as { prompt: unknown[] }) : undefined;
        return [text(`you sent ${options?.prompt.length} message(s)`)];
      },
    ]);
    const parts = await collect((await model.doStream(callOptions())).stream);
    expect(parts.find((p) => p.type === "text-delta")).toMatchObject({ delta: "you sent 1 message(s)" });
  });

  it("answers doGenerate with the same step content", async () => {
    const model = scriptedModel([
      [reasoning("r"), text("a", { chunks: 1 }), toolCall("t", { x: 1 }), usage({ outputTokens: 4 })],
    ]);
    const result = await model.doGenerate(callOptions());
    expect(result.content).toEqual([
      { type: "reasoning", text: "r" },
      { type: "text", text: "a" },
      { type: "tool-call", toolCallId: "call_0_0", toolName: "t", input: '{"x":1}' },
    ]);
    expect(result.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
    expect(result.usage.outputTokens.total).toBe(4);
  });

  it("is accepted by the AI SDK as a language model", async () => {
    const model = scriptedModel([[text("Hi there", { chunks: 2 }), usage({ inputTokens: 3, outputTokens: 2 })]]);
    const result = streamText({ model, prompt: "hello" });
    expect(await result.text).toBe("Hi there");
    expect((await result.usage).inputTokens).toBe(3);
  });

  it("streams a long step in time linear in its deltas", async () => {
    // Enqueuing a whole step up front made 100,000 deltas take seconds (the stream queue shifts an array).
    const n = 100_000;
    const model = scriptedModel([[text("y".repeat(n), { chunks: n })]], { record: false });
    const started = performance.now();
    const parts = await collect((await model.doStream(callOptions())).stream);
    expect(parts.length).toBe(n + 5);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("stays cheap at zero latency: thousands of steps a second", async () => {
    const steps = 2000;
    const model = scriptedModel(
      Array.from({ length: steps }, () => [toolCall("noop", { i: 1 }), usage({ inputTokens: 1 })]),
      { record: false },
    );
    const started = performance.now();
    for (let i = 0; i < steps; i++) await collect((await model.doStream(callOptions())).stream);
    const perSecond = steps / ((performance.now() - started) / 1000);
    // Loose bound (the runtime needs >= 4,000 steps/s in total); a typical run here is far above it.
    expect(perSecond).toBeGreaterThan(4000);
  });
});
