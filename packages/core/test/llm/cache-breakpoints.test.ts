import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { cacheMarkFor, withCacheBreakpoints } from "../../src/llm/cache-breakpoints.js";

const prompt = (): LanguageModelV4Prompt => [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: "fix the test" }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: {} }] },
  {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "..." } }],
  },
  { role: "assistant", content: [{ type: "text", text: "done" }] },
  { role: "user", content: [{ type: "text", text: "thanks" }] },
];

const marked = (p: LanguageModelV4Prompt) => p.flatMap((m, i) => (m.providerOptions ? [i] : []));

describe("prompt cache breakpoints", () => {
  it("marks Anthropic prompts at the system prompt and the last two messages, and nothing else", () => {
    const mark = cacheMarkFor("anthropic/claude-sonnet-4-5", "anthropic.messages");
    const out = withCacheBreakpoints(prompt(), mark);
    expect(marked(out)).toEqual([0, 4, 5]);
    expect(out[5]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
  });

  it("never changes the prompt it is given, so a mark does not linger on the next step", () => {
    const original = prompt();
    const mark = cacheMarkFor("anthropic/claude-sonnet-4-5", "anthropic.messages");
    withCacheBreakpoints(original, mark);
    expect(marked(original)).toEqual([]);
    original.push({ role: "assistant", content: [{ type: "text", text: "more" }] });
    expect(marked(withCacheBreakpoints(original, mark))).toEqual([0, 5, 6]);
  });

  it("keeps a message's own provider options beside the mark", () => {
    const p = prompt();
    p[5] = { ...p[5]!, providerOptions: { anthropic: { other: true } } } as LanguageModelV4Prompt[number];
    const out = withCacheBreakpoints(p, cacheMarkFor("anthropic/x", "anthropic.messages"));
    expect(out[5]?.providerOptions).toEqual({ anthropic: { other: true, cacheControl: { type: "ephemeral" } } });
  });

  it("leaves providers that cache a stable prefix on their own untouched", () => {
    for (const [ref, provider] of [
      ["openai/gpt-5", "openai.responses"],
      ["google/gemini-2.5-pro", "google.generative-ai"],
      ["openai-compatible/llama3", "openai-compatible.chat"],
    ] as const) {
      const p = prompt();
      expect(withCacheBreakpoints(p, cacheMarkFor(ref, provider))).toBe(p);
    }
  });

  it("uses Bedrock's cache points for Anthropic models on Bedrock", () => {
    const mark = cacheMarkFor("bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "amazon-bedrock");
    expect(mark).toEqual({ bedrock: { cachePoint: { type: "default" } } });
    expect(cacheMarkFor("bedrock/amazon.nova-pro-v1:0", "amazon-bedrock")).toBeUndefined();
  });
});
