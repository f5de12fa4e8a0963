import { type RecordedProviderOptions, recordedEvents } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { PROVIDER_PROMPTS, type PromptFamily, promptFamily } from "../../src/prompt/providers/index.js";
import { buildSystemPrompt, DEFAULT_AGENT_PROMPT, defaultAgentPrompt } from "../../src/prompt/system-prompt.js";
import { collect } from "../loop/harness.js";
import { replay } from "./recorded-servers.js";

/**
 * The provider-specific system prompts: which family each model gets, and, on real recorded streams of
 * each family, that the family's prompt is what the provider is sent and that the tool calls the
 * recorded answer makes parse into the stored call exactly as the wire carried them.
 */

type Wire = RecordedProviderOptions["wire"];
type Json = Record<string, unknown>;

/** The tool calls in a recording, read straight off the wire (independently of the AI SDK), as name and arguments. */
function wireToolCalls(wire: Wire, file: string): Array<{ name: string; input: unknown }> {
  const events = recordedEvents(file).map((line) => JSON.parse(line) as Json);
  if (wire === "anthropic-messages") {
    const calls: Array<{ name: string; json: string }> = [];
    for (const e of events) {
      const block = e.content_block as Json | undefined;
      if (e.type === "content_block_start" && block?.type === "tool_use") calls.push({ name: String(block.name), json: "" });
      const delta = e.delta as Json | undefined;
      if (e.type === "content_block_delta" && delta?.type === "input_json_delta")
        calls.at(-1)!.json += String(delta.partial_json);
    }
    return calls.map((c) => ({ name: c.name, input: JSON.parse(c.json || "{}") }));
  }
  if (wire === "openai-responses") {
    return events.flatMap((e) => {
      const item = e.item as Json | undefined;
      return e.type === "response.output_item.done" && item?.type === "function_call"
        ? [{ name: String(item.name), input: JSON.parse(String(item.arguments)) }]
        : [];
    });
  }
  if (wire === "gemini") {
    return events.flatMap((e) =>
      ((e.candidates as Json[] | undefined) ?? []).flatMap((c) =>
        (((c.content as Json | undefined)?.parts as Json[] | undefined) ?? []).flatMap((p) => {
          const call = p.functionCall as Json | undefined;
          return call ? [{ name: String(call.name), input: call.args }] : [];
        }),
      ),
    );
  }
  // Chat Completions: a call's arguments arrive in pieces, by index.
  const calls = new Map<number, { name: string; json: string }>();
  for (const e of events) {
    for (const choice of (e.choices as Json[] | undefined) ?? []) {
      for (const piece of ((choice.delta as Json | undefined)?.tool_calls as Json[] | undefined) ?? []) {
        const fn = (piece.function ?? {}) as Json;
        const call = calls.get(Number(piece.index)) ?? { name: "", json: "" };
        if (typeof fn.name === "string") call.name += fn.name;
        if (typeof fn.arguments === "string") call.json += fn.arguments;
        calls.set(Number(piece.index), call);
      }
    }
  }
  return [...calls.values()].map((c) => ({ name: c.name, input: JSON.parse(c.json || "{}") }));
}

describe("which family's prompt a model gets", () => {
  it.each<[string, PromptFamily]>([
    ["anthropic/claude-sonnet-4-5", "anthropic"],
    ["bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0", "anthropic"],
    ["openrouter/anthropic/claude-sonnet-4.5", "anthropic"],
    ["openai/gpt-5.1-codex-max", "openai"],
    ["openai/o4-mini", "openai"],
    ["azure/my-deployment", "openai"],
    ["google/gemini-3-pro-preview", "gemini"],
    ["openrouter/google/gemini-2.5-flash", "gemini"],
    ["groq/llama-3.3-70b-versatile", "open"],
    ["groq/openai/gpt-oss-120b", "open"],
    ["openai-compatible/qwen3", "open"],
    ["mistral/mistral-small-latest", "open"],
    ["deepseek/deepseek-chat", "open"],
  ])("%s → %s", (model, family) => {
    expect(promptFamily(model)).toBe(family);
    expect(defaultAgentPrompt(model)).toBe(`${DEFAULT_AGENT_PROMPT}\n\n${PROVIDER_PROMPTS[family].text}`);
  });

  it("gives each family a prompt of its own, and none to an agent with its own prompt", () => {
    const texts = Object.values(PROVIDER_PROMPTS).map((p) => p.text);
    expect(new Set(texts).size).toBe(4);
    const own = buildSystemPrompt({
      agentPrompt: "You review code.",
      environment: { cwd: "/w", isGitRepo: false, platform: "linux", date: "2026-01-01", model: "anthropic/claude-x" },
      maxChars: 100_000,
    });
    for (const text of texts) expect(own).not.toContain(text);
  });
});

describe("each family's prompt on its recorded streams", () => {
  it.each<[PromptFamily, string, Wire, string]>([
    [
      "anthropic",
      "anthropic/claude-sonnet-4-5",
      "anthropic-messages",
      "anthropic/anthropic-issue-11719-quoted-tool-input.chunks.txt",
    ],
    ["openai", "openai/gpt-5.2", "openai-responses", "openai/openai-issue-11239.1.chunks.txt"],
    ["gemini", "google/gemini-3-pro-preview", "gemini", "google/google-tool-call-gemini3.chunks.txt"],
    ["open", "groq/llama-3.3-70b-versatile", "openai-chat", "groq/groq-tool-call.chunks.txt"],
    ["open", "mistral/mistral-small-latest", "openai-chat", "mistral/mistral-tool-call.chunks.txt"],
    ["open", "deepseek/deepseek-chat", "openai-chat", "deepseek/deepseek-tool-call.chunks.txt"],
  ])("%s: %s is sent its family's prompt and its recorded tool call parses", async (family, model, wire, file) => {
    const { server, runtime, store } = await replay(model, wire, [file]);
    // One model call: the recorded answer is a tool call, and its tool is not one Arbor has.
    const { result } = await collect(runtime.runs.run({ prompt: "Go.", maxTurns: 1 }));

    const sent = JSON.stringify(server.requests[0]?.body);
    for (const [other, prompt] of Object.entries(PROVIDER_PROMPTS)) {
      expect(sent.includes(JSON.stringify(prompt.text).slice(1, -1)), `${other} prompt sent to ${model}`).toBe(other === family);
    }

    const expected = wireToolCalls(wire, file);
    expect(expected.length).toBeGreaterThan(0);
    const stored = (await store.getActivePath(result.sessionId)).flatMap((e) =>
      e.type === "message" && e.message.role === "assistant"
        ? e.message.content.flatMap((p) => (p.type === "tool-call" ? [{ name: p.toolName, input: p.input }] : []))
        : [],
    );
    expect(stored).toEqual(expected);
    for (const call of stored)
      expect(typeof call.input === "object" && call.input !== null && !Array.isArray(call.input)).toBe(true);
  });
});
