import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/model/entry.js";
import { collect, harness } from "../loop/harness.js";
import { anthropicAndOpenAI, anthropicReplay, replay, requestBody } from "./recorded-servers.js";

const bodyOf = requestBody;
const ofType = (path: Entry[], type: Entry["type"]) => path.filter((e) => e.type === type);

describe("thinking levels reach each provider, and the session keeps them", () => {
  it("Anthropic: a level becomes a thinking budget, recorded once and kept by the continued session", async () => {
    const { server, runtime, store } = await anthropicReplay(
      "anthropic/anthropic-clear-thinking.1.chunks.txt",
      "anthropic/anthropic-text.chunks.txt",
      "anthropic/anthropic-text.chunks.txt",
    );
    const first = await collect(runtime.runs.run({ prompt: "Divide by 5.", thinking: "high" }));
    expect(first.result.status).toBe("done");
    expect(bodyOf(server, 0).thinking).toMatchObject({ type: "enabled", budget_tokens: expect.any(Number) });

    const id = first.result.sessionId;
    await collect(runtime.runs.run({ sessionId: id, prompt: "Again." }));
    expect(bodyOf(server, 1).thinking).toEqual(bodyOf(server, 0).thinking);

    await collect(runtime.runs.run({ sessionId: id, prompt: "Now quickly.", thinking: "off" }));
    expect(bodyOf(server, 2).thinking).not.toMatchObject({ type: "enabled" });
    const path = await store.getActivePath(id);
    expect(ofType(path, "thinking_level_change").map((e) => (e as { thinkingLevel: string }).thinkingLevel)).toEqual([
      "high",
      "off",
    ]);
    expect((await store.getSnapshot(id)).runtimeContext.thinkingLevel).toBe("off");
  });

  it("OpenAI Responses: a level becomes the reasoning effort, with summaries asked for", async () => {
    const { server, runtime } = await replay("openai/gpt-5.2", "openai-responses", ["openai/openai-issue-11239.2.chunks.txt"]);
    await collect(runtime.runs.run({ prompt: "hi", thinking: "low" }));
    expect(bodyOf(server, 0).reasoning).toEqual({ effort: "low", summary: "auto" });
  });

  it("Azure OpenAI: a level reaches a deployment whatever its name, with summaries asked for", async () => {
    const { server, runtime } = await replay("azure/my-deployment", "openai-responses", [
      "openai/openai-issue-11239.2.chunks.txt",
    ]);
    await collect(runtime.runs.run({ prompt: "hi", thinking: "high" }));
    expect(bodyOf(server, 0).reasoning).toEqual({ effort: "high", summary: "auto" });
  });

  it("Gemini: a level becomes its thinking config, with thoughts included", async () => {
    const { server, runtime } = await replay("google/gemini-3-pro-preview", "gemini", [
      "google/google-reasoning-gemini3.chunks.txt",
    ]);
    await collect(runtime.runs.run({ prompt: "hi", thinking: "high" }));
    const config = bodyOf(server, 0).generationConfig as { thinkingConfig?: Record<string, unknown> };
    expect(config.thinkingConfig).toMatchObject({ includeThoughts: true });
  });

  it("a thinking level that does not exist is refused, naming the levels, and writes nothing", async () => {
    const { server, runtime, store } = await replay("openai/gpt-5.2", "openai-responses", [
      "openai/openai-issue-11239.2.chunks.txt",
    ]);
    const bad = await collect(runtime.runs.run({ prompt: "hi", thinking: "extreme" as never }));
    expect(bad.result).toMatchObject({ status: "error", error: { code: "invalid_input" } });
    expect(bad.result.error?.message).toContain("medium");
    expect((await store.listSessions({})).sessions).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });
});

describe("a continued session keeps its model", () => {
  it("uses the model it last used, and records a model_change when a run names another", async () => {
    const { anthropic, openai, env } = await anthropicAndOpenAI(
      ["anthropic/anthropic-text.chunks.txt", "anthropic/anthropic-text.chunks.txt"],
      ["openai/openai-issue-11239.2.chunks.txt"],
    );
    // The runtime's default is OpenAI; the session starts on Anthropic.
    const { runtime, store } = await harness({ env, model: "openai/gpt-5.2" });
    const first = await collect(runtime.runs.run({ prompt: "hi", model: "anthropic/claude-sonnet-4-5" }));
    const id = first.result.sessionId;
    await collect(runtime.runs.run({ sessionId: id, prompt: "and again" }));
    expect(anthropic.callCount).toBe(2);
    expect(openai.callCount).toBe(0);

    await collect(runtime.runs.run({ sessionId: id, prompt: "switch", model: "openai/gpt-5.2" }));
    expect(openai.callCount).toBe(1);
    const path = await store.getActivePath(id);
    expect(ofType(path, "model_change").map((e) => (e as { model: string }).model)).toEqual(["openai/gpt-5.2"]);
    // The Anthropic turns' thinking and signatures are not sent to OpenAI, and the request is accepted.
    const input = bodyOf(openai, 0).input as Array<{ role?: string }>;
    expect(input.filter((m) => m.role === "assistant").length).toBeGreaterThan(0);
  });
});

describe("switching provider mid-session with reasoning on both sides", () => {
  type AnthropicBody = { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
  type ResponsesBody = { input: Array<Record<string, unknown>> };

  it("sends each provider only the reasoning it can take: Anthropic → OpenAI → Anthropic", async () => {
    const { anthropic, openai, env } = await anthropicAndOpenAI(
      ["anthropic/anthropic-clear-thinking.1.chunks.txt", "anthropic/anthropic-text.chunks.txt"],
      ["openai/openai-issue-11239.1.chunks.txt", "openai/openai-issue-11239.2.chunks.txt"],
    );
    const { runtime, store } = await harness({ env, model: "anthropic/claude-sonnet-4-5" });
    const first = await collect(runtime.runs.run({ prompt: "Divide by 5.", thinking: "high" }));
    const id = first.result.sessionId;
    const second = await collect(runtime.runs.run({ sessionId: id, prompt: "Look up the code.", model: "openai/gpt-5.2" }));
    expect(second.result.status).toBe("done");
    const third = await collect(runtime.runs.run({ sessionId: id, prompt: "Thanks.", model: "anthropic/claude-sonnet-4-5" }));
    expect(third.result.status).toBe("done");
    expect([anthropic.callCount, openai.callCount]).toEqual([2, 2]);

    // OpenAI gets no reasoning item for Anthropic's thinking (it has no OpenAI item id) and never its
    // signature; only its own reasoning goes back on its second call.
    const thinkingText = "925";
    for (const request of openai.requests) {
      const input = (request.body as ResponsesBody).input;
      expect(JSON.stringify(input)).not.toContain("EvQBCkYICxgCKkAx");
      const reasoning = input.filter((i) => i.type === "reasoning" || i.type === "item_reference");
      for (const item of reasoning) expect(JSON.stringify(item)).not.toContain(thinkingText);
    }
    const secondInput = (openai.requests[1]?.body as ResponsesBody | undefined)?.input ?? [];
    expect(secondInput.some((i) => i.type === "reasoning" || i.type === "item_reference")).toBe(true);

    // Back on Anthropic: its own signed thinking block goes back, OpenAI's encrypted reasoning does
    // not, and no thinking block goes without a signature (Anthropic rejects those).
    const body = anthropic.requests[1]?.body as AnthropicBody;
    const thinking = body.messages
      .flatMap((m) => m.content)
      .filter((p) => p.type === "thinking" || p.type === "redacted_thinking");
    expect(thinking).toEqual([
      expect.objectContaining({
        thinking: expect.stringContaining(thinkingText),
        signature: expect.stringMatching(/^EvQBCkYICxgCKkAx/),
      }),
    ]);
    expect(JSON.stringify(body)).not.toContain("gAAAA");
    // The OpenAI turn's call and its result still reach Anthropic as a tool_use and its tool_result.
    const toolUse = body.messages.flatMap((m) => m.content).find((p) => p.type === "tool_use");
    const toolResult = body.messages.flatMap((m) => m.content).find((p) => p.type === "tool_result");
    expect(toolUse).toMatchObject({ name: "lookupVerificationCode" });
    expect(toolResult).toMatchObject({ tool_use_id: toolUse?.id });

    const path = await store.getActivePath(id);
    expect(ofType(path, "model_change").map((e) => (e as { model: string }).model)).toEqual([
      "openai/gpt-5.2",
      "anthropic/claude-sonnet-4-5",
    ]);
  });
});
