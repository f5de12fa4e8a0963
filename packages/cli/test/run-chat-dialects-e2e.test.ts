import type { AssistantMessage } from "@arbor/core";
import { type ProviderWire, type RecordedProviderServer, recordedStream } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { assistantsOf, bodyOf, recordedRuns, thinkingLevelsOf } from "./helpers/recorded-run.js";

/**
 * End to end on the providers that speak a Chat Completions dialect (Mistral, Groq, DeepSeek,
 * OpenRouter) and on xAI, whose AI SDK model speaks its Responses API: the built `arbor run` runs a
 * recorded tool-call turn and the answer after it, then `arbor run --session` continues. Each check
 * names what that provider needs back on the next request. The recorded turns call a `weather` tool
 * `arbor run` does not have, so the result sent back is an "unknown tool" error.
 */

const { serve, run, snapshot } = recordedRuns();

type ChatMessage = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> } & Record<
  string,
  unknown
>;
type ChatBody = { messages: ChatMessage[] } & Record<string, unknown>;
type ResponsesBody = { input: Array<Record<string, unknown>> } & Record<string, unknown>;

interface Dialect {
  name: string;
  model: string;
  /** The provider's key and base URL variables' common prefix, e.g. `MISTRAL`. */
  env: string;
  wire: ProviderWire;
  path: string;
  thinking: string;
  /** The tool-call turn, then the answer (replayed twice: after the tool, and for the continued session). */
  files: [call: string, answer: string];
  /** What the stored session and the requests must hold. */
  check(server: RecordedProviderServer, turns: AssistantMessage[]): void;
}

/** The assistant messages of a Chat Completions request, and its tool results. */
function chatTurns(server: RecordedProviderServer, call: number) {
  const messages = bodyOf<ChatBody>(server, call).messages;
  return { assistants: messages.filter((m) => m.role === "assistant"), tools: messages.filter((m) => m.role === "tool") };
}

/** Every later request carries the tool call with its id and the result for that id. */
function expectToolRoundTrip(server: RecordedProviderServer, callId: string): void {
  for (const call of [1, 2]) {
    const { assistants, tools } = chatTurns(server, call);
    expect(assistants[0]?.tool_calls?.map((c) => c.id)).toEqual([callId]);
    expect(tools.map((t) => t.tool_call_id)).toEqual([callId]);
  }
}

/**
 * A Chat Completions dialect: its key and base URL variables are named after the model's provider,
 * it asks for the thinking level as `reasoning_effort`, and every later request carries the tool
 * call `callId` and its result.
 */
function chatDialect(
  name: string,
  model: string,
  dialect: Pick<Dialect, "thinking" | "files" | "check"> & { callId: string },
): Dialect {
  const { thinking, files, callId, check } = dialect;
  return {
    name,
    model,
    env: model.slice(0, model.indexOf("/")).toUpperCase(),
    wire: "openai-chat",
    path: "/v1/chat/completions",
    thinking,
    files,
    check(server, turns) {
      expect(bodyOf<ChatBody>(server, 0).reasoning_effort).toBe(thinking);
      expectToolRoundTrip(server, callId);
      check(server, turns);
    },
  };
}

const DIALECTS: Dialect[] = [
  chatDialect("Mistral", "mistral/magistral-medium-2507", {
    thinking: "high",
    files: ["mistral/mistral-tool-call.chunks.txt", "mistral/mistral-reasoning.chunks.txt"],
    callId: "gSIMJiOkT",
    check(server, [call, answer]) {
      expect(call?.content).toEqual([
        expect.objectContaining({ type: "tool-call", toolCallId: "gSIMJiOkT", toolName: "weather" }),
      ]);
      expect(answer?.content.map((p) => p.type)).toEqual(["reasoning", "text"]);
      // Mistral takes its thinking back as a `thinking` chunk of the assistant's content.
      const [, thought] = chatTurns(server, 2).assistants;
      expect(thought?.content).toEqual([
        { type: "thinking", thinking: [{ type: "text", text: expect.stringContaining("2+2=4") }], closed: true },
        { type: "text", text: "2 + 2 = 4" },
      ]);
    },
  }),
  chatDialect("Groq", "groq/qwen/qwen3-32b", {
    thinking: "high",
    files: ["groq/groq-tool-call.chunks.txt", "groq/groq-reasoning.derived.chunks.txt"],
    callId: "tk85n1k4m",
    check(server, [call, answer]) {
      expect(call?.content).toEqual([expect.objectContaining({ type: "tool-call", toolCallId: "tk85n1k4m", input: {} })]);
      expect(answer?.tokens).toMatchObject({ input: 17, output: 1107, reasoning: 963 });
      // Groq takes earlier reasoning back in the assistant message's `reasoning` field.
      const [, thought] = chatTurns(server, 2).assistants;
      expect(thought).toMatchObject({ content: "boxed{3}$", reasoning: expect.stringContaining("strawberry") });
    },
  }),
  chatDialect("DeepSeek", "deepseek/deepseek-v4-flash", {
    thinking: "high",
    files: ["deepseek/deepseek-tool-call.chunks.txt", "deepseek/deepseek-reasoning.derived.chunks.txt"],
    callId: "call_00_IhCAliIHtM9gKpgfqbBV9873",
    check(server, [call]) {
      expect(bodyOf<ChatBody>(server, 0)).toMatchObject({ thinking: { type: "enabled" } });
      expect(call?.content.map((p) => p.type)).toEqual(["reasoning", "tool-call"]);
      expect(call?.tokens).toMatchObject({ input: 374, cacheRead: 256, reasoning: 17 });
      // In thinking mode DeepSeek needs each tool-calling turn's reasoning_content back in the loop.
      for (const request of [1, 2]) {
        const [withCall, after] = chatTurns(server, request).assistants;
        expect(withCall?.reasoning_content).toBe(
          "The user asks about the weather in San Francisco. I should use the weather tool.",
        );
        if (request === 2) expect(after?.reasoning_content).toBe("We need answer simple. Need count r in strawberry.");
      }
    },
  }),
  chatDialect("OpenRouter", "openrouter/deepseek/deepseek-r1", {
    thinking: "low",
    files: [
      "openrouter/openrouter-reasoning-tool-call.composed.chunks.txt",
      "openrouter/openrouter-reasoning-text.composed.chunks.txt",
    ],
    callId: "call_or_7b1f0c",
    check(server, [call, answer]) {
      expect(bodyOf<ChatBody>(server, 0)).toMatchObject({ stream_options: { include_usage: true } });
      expect(call?.content.map((p) => p.type)).toEqual(["reasoning", "tool-call"]);
      expect(answer?.tokens).toMatchObject({ input: 260, cacheRead: 128, reasoning: 14 });
      const [withCall] = chatTurns(server, 2).assistants;
      expect(withCall?.reasoning_content).toContain("I will call the weather tool.");
    },
  }),
  {
    name: "xAI",
    model: "xai/grok-4.3",
    env: "XAI",
    wire: "openai-responses",
    path: "/v1/responses",
    // A token budget: xAI takes an effort, so 30,000 tokens asks for "high".
    thinking: "30000",
    files: ["xai/xai-reasoning-function-call.derived.chunks.txt", "xai/issue-17936-stream.chunks.txt"],
    check(server, [call, answer]) {
      expect(bodyOf<ResponsesBody>(server, 0).reasoning).toEqual({ effort: "high" });
      const itemId = "rs_0d7f672c-6cf5-9f88-af4b-a8b16c2c965d";
      expect(call?.content.find((p) => p.type === "reasoning")).toMatchObject({ providerMetadata: { xai: { itemId } } });
      expect(answer?.tokens).toMatchObject({ input: 197, cacheRead: 192, reasoning: 198 });
      // xAI needs the reasoning item (by its id) ahead of the function call, and the call's output.
      for (const request of [1, 2]) {
        const input = bodyOf<ResponsesBody>(server, request).input;
        const types = input.filter((i) => i.type !== undefined).map((i) => i.type);
        expect(types.slice(0, 3)).toEqual(["reasoning", "function_call", "function_call_output"]);
        expect(input.find((i) => i.type === "reasoning")).toMatchObject({ id: itemId, summary: [{ type: "summary_text" }] });
        expect(input.find((i) => i.type === "function_call")).toMatchObject({ call_id: "call_0d7f672c", name: "weather" });
        expect(input.find((i) => i.type === "function_call_output")).toMatchObject({ call_id: "call_0d7f672c" });
      }
    },
  },
];

describe.each(DIALECTS)("arbor run on recorded $name streams", (dialect) => {
  it("runs a tool loop with thinking, continues it, and sends back what the provider needs", async () => {
    const [callFile, answerFile] = dialect.files;
    const server = await serve(dialect.wire, [recordedStream(callFile), recordedStream(answerFile), recordedStream(answerFile)]);
    const env = { [`${dialect.env}_API_KEY`]: "test-key", [`${dialect.env}_BASE_URL`]: server.baseURL };
    const id = await run(dialect.model, env, "--thinking", dialect.thinking, "What is the weather in San Francisco?");
    expect(server.callCount).toBe(2);
    expect(await run(dialect.model, env, "--session", id, "And now?")).toBe(id);
    expect(server.callCount).toBe(3);
    expect(server.requests.map((r) => r.path)).toEqual(Array(3).fill(dialect.path));
    for (const request of server.requests) expect(request.headers.authorization).toBe("Bearer test-key");

    const snap = await snapshot(id);
    const level = /^\d+$/.test(dialect.thinking) ? Number(dialect.thinking) : dialect.thinking;
    expect(thinkingLevelsOf(snap)).toEqual([level]);
    // The continued session asks with the same thinking options without being told again.
    const { messages: _0, input: _1, ...first } = bodyOf<Record<string, unknown>>(server, 0);
    const { messages: _2, input: _3, ...last } = bodyOf<Record<string, unknown>>(server, 2);
    expect(last).toEqual(first);
    const turns = assistantsOf(snap);
    expect(turns).toHaveLength(3);
    dialect.check(server, turns);
  });
});
