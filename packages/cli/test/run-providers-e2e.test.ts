import type { AssistantMessage, Snapshot } from "@arbor/core";
import {
  type RecordedProviderServer,
  type RecordedReply,
  recordedResponses,
  recordedStream,
  startRecordedProvider,
} from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";
import { messagesOf, snapshotOf } from "./helpers/session.js";

/**
 * End to end: `arbor run` against real provider streams replayed by a loopback server,
 * then `arbor run --session` continuing the session. What each provider streamed must be in the
 * stored session, and each next request must carry what that provider needs back (Anthropic's
 * signed thinking, OpenAI's reasoning items, Gemini's thought signatures). The recorded turns call
 * tools `arbor run` does not have, so their results are "unknown tool" errors: the loop goes on.
 */

const e2e = setupCliE2e("arbor-providers-e2e-");
const servers: RecordedProviderServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(wire: Parameters<typeof startRecordedProvider>[0]["wire"], replies: RecordedReply[]) {
  const server = await startRecordedProvider({ wire, replies });
  servers.push(server);
  return server;
}

const events = runEvents;

/**
 * `arbor run --json` to completion; returns the session id. In this process, unless `env` routes
 * requests through a proxy: Node reads NODE_USE_ENV_PROXY when a process starts, so that run gets one.
 */
async function run(model: string, env: Record<string, string>, ...rest: string[]): Promise<string> {
  const r = await (env.NODE_USE_ENV_PROXY ? e2e.arbor : e2e.cli)(
    ["run", "--json", "--model", model, "--cwd", e2e.workspace, ...rest],
    { env },
  );
  expect(r.code, r.stderr).toBe(0);
  const all = events(r);
  expect(all.at(-1)?.type).toBe("done");
  return all[0]!.session_id;
}

const snapshot = (id: string): Promise<Snapshot> => snapshotOf(e2e.home, id);
const messages = messagesOf;

function assistants(s: Snapshot): AssistantMessage[] {
  return messages(s).filter((m): m is AssistantMessage => m.role === "assistant");
}

function body<T>(server: RecordedProviderServer, call: number): T {
  return server.requests[call]?.body as T;
}

function thinkingLevels(s: Snapshot): Array<string | number> {
  return s.entries.flatMap((e) => (e.type === "thinking_level_change" ? [e.thinkingLevel] : []));
}

type AnthropicBody = { thinking?: unknown; messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };

describe("arbor run on recorded Anthropic Messages streams", () => {
  it("runs a tool loop with thinking, continues it, and sends the signed thinking block back", async () => {
    const server = await serve("anthropic-messages", [
      recordedStream("anthropic/anthropic-issue-11719-quoted-tool-input.chunks.txt"),
      recordedStream("anthropic/anthropic-clear-thinking.1.chunks.txt"),
      recordedStream("anthropic/anthropic-issue-5942-cache-read.chunks.txt"),
    ]);
    const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.baseURL };
    const model = "anthropic/claude-sonnet-4-5";
    const id = await run(model, env, "--thinking", "high", "Update the landing page, then divide 925 by 5.");
    expect(server.callCount).toBe(2);
    expect(body<AnthropicBody>(server, 0).thinking).toMatchObject({ type: "enabled", budget_tokens: expect.any(Number) });

    const again = await run(model, env, "--session", id, "Summarize the document.");
    expect(again).toBe(id);
    expect(server.callCount).toBe(3);
    // The continued session keeps its thinking level without being told again.
    expect(body<AnthropicBody>(server, 2).thinking).toEqual(body<AnthropicBody>(server, 0).thinking);

    const snap = await snapshot(id);
    expect(thinkingLevels(snap)).toEqual(["high"]);
    const [call, answer, last] = assistants(snap);
    const toolCall = call?.content.find((p) => p.type === "tool-call");
    expect(toolCall).toMatchObject({ toolCallId: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN", toolName: "website_update" });
    expect(JSON.stringify((toolCall as { input: unknown }).input)).toContain('\\"');
    expect(answer?.content.find((p) => p.type === "reasoning")).toMatchObject({
      text: expect.stringContaining("925"),
      providerMetadata: { anthropic: { signature: expect.stringMatching(/^EvQBCkYICxgCKkAx/) } },
    });
    expect(last?.tokens).toMatchObject({ input: 18_642, cacheRead: 18_639 });

    // Both later requests carry the tool call with its id, its result, and (the last) the signed thinking.
    for (const call of [1, 2]) {
      const sent = body<AnthropicBody>(server, call).messages.flatMap((m) => m.content);
      expect(sent.find((p) => p.type === "tool_use")).toMatchObject({
        id: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN",
        name: "website_update",
        input: (toolCall as { input: unknown }).input,
      });
      expect(sent.find((p) => p.type === "tool_result")).toMatchObject({ tool_use_id: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN" });
    }
    const thinking = body<AnthropicBody>(server, 2)
      .messages.flatMap((m) => (m.role === "assistant" ? m.content : []))
      .filter((p) => p.type === "thinking");
    expect(thinking).toEqual([
      expect.objectContaining({
        thinking: expect.stringContaining("925"),
        signature: expect.stringMatching(/^EvQBCkYICxgCKkAx/),
      }),
    ]);
  });
});

type ResponsesBody = { reasoning?: unknown; include?: string[]; input: Array<Record<string, unknown>> };

/** The recorded four-response loop (reasoning with encrypted content, three `calculator` calls, the answer), then cached text. */
function openaiReplies(wire: "openai-responses" | "azure-responses"): RecordedReply[] {
  return [
    ...recordedResponses(wire, "openai/openai-reasoning-encrypted-content.1.chunks.txt"),
    recordedStream("openai/issue-16021-openai-zod-patterns-live.chunks.txt"),
  ];
}

/** What the stored session and each request of the OpenAI loop must hold, on OpenAI's own API or Azure's. */
async function checkResponsesLoop(server: RecordedProviderServer, id: string, metadataKey: "openai" | "azure"): Promise<void> {
  expect(server.callCount).toBe(5);
  expect(body<ResponsesBody>(server, 0).reasoning).toEqual({ effort: "medium", summary: "auto" });

  const snap = await snapshot(id);
  expect(thinkingLevels(snap)).toEqual(["medium"]);
  const all = assistants(snap);
  const calls = all.flatMap((m) => m.content.filter((p) => p.type === "tool-call"));
  expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
    ["call_AB6AaRZ1FYZB2RwS6A5vbdqn", "calculator", { a: 12, b: 7, op: "add" }],
    ["call_Q6pW65MUgW9vF59BmItYGos3", "calculator", { a: 19, b: 3, op: "multiply" }],
    ["call_Zl5vIMnD7dVAjgU6FkhmiCZh", "calculator", { a: 57, b: 10, op: "multiply" }],
  ]);
  const reasoning = all.flatMap((m) => m.content.filter((p) => p.type === "reasoning"));
  expect(reasoning.length).toBeGreaterThan(0);
  for (const part of reasoning) {
    expect(part.providerMetadata).toMatchObject({
      [metadataKey]: { itemId: expect.stringMatching(/^rs_/), reasoningEncryptedContent: expect.stringMatching(/^gAAAA/) },
    });
  }
  expect(all.at(-1)?.tokens).toMatchObject({ input: 14_308, cacheRead: 14_080 });

  // Every later request, the continued session's too, carries the reasoning items and the calls with their ids.
  for (const request of server.requests.slice(1)) {
    const input = (request.body as ResponsesBody).input;
    expect(input.some((item) => item.type === "reasoning" || item.type === "item_reference")).toBe(true);
    const sentReasoning = input.filter((item) => item.type === "reasoning");
    for (const item of sentReasoning) expect(item.encrypted_content).toMatch(/^gAAAA/);
  }
  const last = body<ResponsesBody>(server, 4).input;
  const sentCalls = last.filter((item) => item.type === "function_call" || item.type === "item_reference");
  expect(sentCalls.length).toBeGreaterThanOrEqual(3);
  const outputs = last.filter((item) => item.type === "function_call_output").map((item) => item.call_id);
  expect(outputs).toEqual(calls.map((c) => c.toolCallId));
}

describe("arbor run on recorded OpenAI Responses streams", () => {
  it("runs a tool loop with encrypted reasoning, continues it, and sends the reasoning items back", async () => {
    const server = await serve("openai-responses", openaiReplies("openai-responses"));
    const env = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    const model = "openai/gpt-5.1-codex-max";
    const id = await run(model, env, "--thinking", "medium", "Compute ((12 + 7) * 3) * 10 with the calculator.");
    expect(server.callCount).toBe(4);
    expect(await run(model, env, "--session", id, "Say READY.")).toBe(id);
    expect(server.requests.map((r) => r.path)).toEqual(Array(5).fill("/v1/responses"));
    await checkResponsesLoop(server, id, "openai");
  });
});

describe("arbor run on Azure OpenAI, over the Responses wire", () => {
  it("calls the deployment at Azure's v1 path with its api-version and api-key, through the same loop", async () => {
    const server = await serve("azure-responses", openaiReplies("azure-responses"));
    // The AI SDK builds Azure's URLs only for Azure host names: the loopback server is reached as their proxy.
    const env = {
      AZURE_API_KEY: "test-key",
      AZURE_BASE_URL: "http://arbor-test.openai.azure.com/openai",
      NODE_USE_ENV_PROXY: "1",
      HTTP_PROXY: server.url,
      NO_PROXY: "",
    };
    const model = "azure/my-deployment";
    // A process of its own: Node reads NODE_USE_ENV_PROXY at start-up.
    const first = await e2e.arbor(
      ["run", "--model", model, "--thinking", "medium", "--cwd", e2e.workspace, "Compute ((12 + 7) * 3) * 10."],
      { env },
    );
    expect(first.code, first.stderr).toBe(0);
    // A deployment name has no catalog price: the summary says so rather than "$0".
    expect(first.stdout).toMatch(/✓ done · 4 steps · .* tokens · price unknown\n/);
    expect(first.stdout).not.toContain("$0");
    const id = /^session (\S+)$/m.exec(first.stdout)?.[1];
    expect(id).toBeDefined();
    expect(await run(model, env, "--session", id!, "Say READY.")).toBe(id);

    for (const request of server.requests) {
      expect(request.headers.host).toBe("arbor-test.openai.azure.com");
      expect(request.path).toBe("/openai/v1/responses");
      expect(request.search).toBe("?api-version=v1");
      expect(request.headers["api-key"]).toBe("test-key");
      expect((request.body as { model: string }).model).toBe("my-deployment");
    }
    await checkResponsesLoop(server, id!, "azure");
    // Nor does the stored session call the deployment's turns free.
    const turns = assistants(await snapshot(id!));
    expect(turns.every((m) => m.tokens !== undefined && m.cost === undefined)).toBe(true);
  });
});

type GeminiBody = {
  generationConfig?: { thinkingConfig?: Record<string, unknown> };
  contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
};

describe("arbor run on recorded Gemini streams", () => {
  it("runs a tool loop with thinking, continues it, and sends the thought signatures back", async () => {
    const server = await serve("gemini", [
      recordedStream("google/google-tool-call-gemini3.chunks.txt"),
      recordedStream("google/google-reasoning-gemini3.chunks.txt"),
      recordedStream("google/google-reasoning-gemini3.chunks.txt"),
    ]);
    const env = { GOOGLE_GENERATIVE_AI_API_KEY: "test-key", GOOGLE_BASE_URL: server.baseURL };
    const model = "google/gemini-3-pro-preview";
    const id = await run(model, env, "--thinking", "low", "What is the weather in San Francisco?");
    expect(server.callCount).toBe(2);
    expect(await run(model, env, "--session", id, "And how many r's are in strawberry?")).toBe(id);
    expect(server.requests.map((r) => r.path)).toEqual(
      Array(3).fill("/v1beta/models/gemini-3-pro-preview:streamGenerateContent"),
    );
    for (const call of [0, 2]) {
      expect(body<GeminiBody>(server, call).generationConfig?.thinkingConfig).toMatchObject({ includeThoughts: true });
    }

    const snap = await snapshot(id);
    expect(thinkingLevels(snap)).toEqual(["low"]);
    const [call, answer] = assistants(snap);
    const toolCall = call?.content.find((p) => p.type === "tool-call");
    expect(toolCall).toMatchObject({
      toolName: "weather",
      input: { location: "San Francisco" },
      providerMetadata: { google: { thoughtSignature: expect.stringMatching(/^EpEgCo4gAb4/) } },
    });
    expect(call?.tokens).toMatchObject({ input: 29, reasoning: expect.any(Number) });
    expect(call?.tokens?.reasoning).toBeGreaterThan(0);
    expect(JSON.stringify(answer?.content)).toContain("thoughtSignature");

    const model1 = body<GeminiBody>(server, 1).contents.find((c) => c.role === "model");
    expect(model1?.parts.find((p) => "functionCall" in p)).toMatchObject({
      functionCall: { name: "weather", args: { location: "San Francisco" } },
      thoughtSignature: expect.stringMatching(/^EpEgCo4gAb4/),
    });
    const response = body<GeminiBody>(server, 1)
      .contents.flatMap((c) => c.parts)
      .find((p) => "functionResponse" in p);
    expect(response).toMatchObject({ functionResponse: { name: "weather" } });
    const signed = body<GeminiBody>(server, 2)
      .contents.flatMap((c) => (c.role === "model" ? c.parts : []))
      .filter((p) => "thoughtSignature" in p);
    expect(signed.map((p) => String(p.thoughtSignature).slice(0, 10))).toEqual(["EpEgCo4gAb", "EpAICo0IAb"]);
  });
});
