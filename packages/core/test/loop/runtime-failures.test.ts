import { error, hang, malformed, scriptedModel, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { LoopClock } from "../../src/llm/retry.js";
import { collect, harness, transcript, types } from "./harness.js";

/** A clock whose sleeps return at once and are recorded, so backoff is asserted without waiting. */
function recordingClock(): LoopClock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) };
}

describe("provider errors and retries", () => {
  it("retries a 429 after its retry-after, then completes", async () => {
    const clock = recordingClock();
    const model = scriptedModel([[error(429, { retryAfter: 7 })], [text("ok")]]);
    const { runtime, store } = await harness({ model, clock });
    const handle = runtime.runs.run({ prompt: "hi" });
    const { result } = await collect(handle);
    expect(result.status).toBe("done");
    expect(clock.sleeps).toEqual([7000]);
    expect(await transcript(store, handle.sessionId)).toEqual(["user: hi", "assistant: ok"]);
  });

  it("backs off exponentially with jitter on 5xx, capped", async () => {
    const clock = recordingClock();
    const model = scriptedModel([[error(500)], [error(503)], [error(502)], [text("ok")]]);
    const { runtime } = await harness({ model, clock, retry: { initialDelayMs: 1000, maxDelayMs: 3000, jitter: 0.2 } });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    expect(clock.sleeps).toHaveLength(3);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(800);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(1200);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(1600);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(2400);
    expect(clock.sleeps[2]).toBeLessThanOrEqual(3000);
  });

  it("gives up after maxRetries with an error event and a persisted error", async () => {
    const clock = recordingClock();
    const model = scriptedModel([[error(500)], [error(500)], [error(500)]]);
    const { runtime, store } = await harness({ model, clock, retry: { maxRetries: 2 } });
    const handle = runtime.runs.run({ prompt: "hi" });
    const { events, result } = await collect(handle);
    expect(result.status).toBe("error");
    expect(result.error?.code).toBe("provider_error");
    expect(events.at(-1)).toMatchObject({ type: "error", code: "provider_error" });
    expect(clock.sleeps).toHaveLength(2);
    const path = await store.getActivePath(handle.sessionId);
    expect(path.at(-1)).toMatchObject({ type: "custom", customType: "arbor.run_error" });
  });

  it("does not retry a 400: the run ends with the provider's message", async () => {
    const clock = recordingClock();
    const model = scriptedModel([[error(400, { message: "context too long for this model" })], [text("never")]]);
    const { runtime } = await harness({ model, clock });
    const { events, result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(clock.sleeps).toEqual([]);
    expect(result.status).toBe("error");
    expect(result.error?.message).toContain("context too long for this model");
    expect(types(events).at(-1)).toBe("error");
    expect(model.remaining).toBe(1);
  });

  it("keeps the partial text of a step that fails mid-stream without retry", async () => {
    const model = scriptedModel([[text("partial answer"), error(400, { at: "part", message: "bad thing" })]]);
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "hi" });
    const { result } = await collect(handle);
    expect(result.status).toBe("error");
    expect(await transcript(store, handle.sessionId)).toEqual(["user: hi", "assistant: partial answer"]);
  });

  it("reports malformed SSE from a real HTTP provider as an error, keeping the session consistent", async () => {
    const server = await startFakeOpenAI({ script: [[text("Hel"), malformed()]] });
    try {
      const config = resolveConfig([{ source: "test", value: { baseURL: server.url } }]);
      const { runtime: rt, store } = await harness({ config, model: "openai-compatible/fake", retry: { maxRetries: 0 } });
      const handle = rt.runs.run({ prompt: "hi" });
      const { result } = await collect(handle);
      expect(result.status).toBe("error");
      expect(result.error?.message).toMatch(/JSON|parse|finish/i);
      const lines = await transcript(store, handle.sessionId);
      expect(lines).toEqual(["user: hi", "assistant: Hel"]);
      expect(lines[0]).toBe("user: hi");
      expect(await store.getSession(handle.sessionId)).toBeDefined();
    } finally {
      await server.close();
    }
  });
});

describe("abort", () => {
  it("keeps the partial text of an aborted step and ends with an aborted error event", async () => {
    const model = scriptedModel([[text("I was saying"), hang()]]);
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "talk" });
    const events = [];
    for await (const event of handle) {
      events.push(event);
      if (event.type === "token") handle.abort();
    }
    const result = await handle.result;
    expect(result.status).toBe("aborted");
    expect(events.at(-1)).toMatchObject({ type: "error", code: "aborted" });
    const path = await store.getActivePath(handle.sessionId);
    const last = path.at(-1);
    expect(last?.type === "message" && last.message).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "I was saying" }],
      finishReason: "aborted",
    });
  });

  it("records a running tool as interrupted when the run is aborted", async () => {
    const model = scriptedModel([[toolCall("bash", { command: "sleep 30", description: "wait" }, { id: "b1" })]]);
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "wait" });
    for await (const event of handle) if (event.type === "tool_start") handle.abort();
    const result = await handle.result;
    expect(result.status).toBe("aborted");
    const lines = await transcript(store, handle.sessionId);
    expect(lines.at(-1)).toBe("tool: result [Tool execution was interrupted]");
  });

  it("an external AbortSignal works too, and a run aborted before it starts writes nothing", async () => {
    const model = scriptedModel([[text("x")]]);
    const { runtime, store } = await harness({ model });
    const controller = new AbortController();
    controller.abort();
    const handle = runtime.runs.run({ prompt: "hi", signal: controller.signal });
    const { result } = await collect(handle);
    expect(result.status).toBe("aborted");
    expect((await store.listSessions()).sessions).toEqual([]);
  });
});

describe("bad input writes nothing", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["empty prompt", { prompt: "   " }, "invalid_input"],
    ["invalid model string", { prompt: "hi", model: "gpt4" }, "invalid_model"],
    ["unknown provider", { prompt: "hi", model: "acme/x" }, "invalid_model"],
    ["missing key", { prompt: "hi", model: "openai/gpt-4o" }, "missing_api_key"],
    ["unknown agent", { prompt: "hi", agent: "wizard" }, "invalid_input"],
    ["bad session id", { prompt: "hi", sessionId: "../etc" }, "invalid_id"],
    ["unknown session", { prompt: "hi", sessionId: "nope" }, "session_not_found"],
    ["10 MB prompt", { prompt: "x".repeat(10 * 1024 * 1024) }, "invalid_input"],
    ["bad maxTurns", { prompt: "hi", maxTurns: 0 }, "invalid_input"],
    ["missing workspace", { prompt: "hi", cwd: "/definitely/not/here" }, "invalid_input"],
  ];
  for (const [name, input, code] of cases) {
    it(name, async () => {
      const model = scriptedModel([[text("x")]]);
      const { runtime, store } = await harness({ model: input.model === undefined ? model : undefined });
      const handle = runtime.runs.run(input as never);
      const { events, result } = await collect(handle);
      expect(result.status).toBe("error");
      expect(result.error?.code).toBe(code);
      expect(result.error?.message.length).toBeGreaterThan(20);
      expect(events).toEqual([expect.objectContaining({ type: "error", code })]);
      expect((await store.listSessions()).sessions).toEqual([]);
      expect(model.callCount).toBe(0);
    });
  }

  it("a missing key names the variable", async () => {
    const { runtime } = await harness();
    const { result } = await collect(runtime.runs.run({ prompt: "hi", model: "anthropic/claude-sonnet-4-5" }));
    expect(result.error?.message).toContain("ANTHROPIC_API_KEY");
  });

  it("an unknown session is refused without creating it", async () => {
    const { runtime, store } = await harness({ model: scriptedModel([]) });
    const { result } = await collect(runtime.runs.run({ prompt: "hi", sessionId: "s-1" }));
    expect(result.error?.code).toBe("session_not_found");
    expect(await store.getSession("s-1")).toBeUndefined();
  });
});
