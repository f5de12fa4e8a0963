import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { TokenCounter } from "../../src/context/token-counter.js";
import { messageTokens, REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE, tokenUpperBound } from "../../src/context/tokens.js";
import type { Message } from "../../src/model/message.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const system = (text: string): Message => ({ role: "system", content: [{ type: "text", text }] });

/**
 * Provider-reported counts, published in OpenAI's cookbook ("How to count tokens with tiktoken"): the
 * prompt_tokens the API returned for these requests to gpt-4o / gpt-4o-mini. The first request gives
 * some messages a `name`, which costs its tokens plus one.
 */
const COOKBOOK_MESSAGES: Array<{ message: Message; name?: string }> = [
  { message: system("You are a helpful, pattern-following assistant that translates corporate jargon into plain English.") },
  { message: system("New synergies will help drive top-line growth."), name: "example_user" },
  { message: system("Things working well together will increase revenue."), name: "example_assistant" },
  {
    message: system("Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."),
    name: "example_user",
  },
  { message: system("Let's talk later when we're less busy about how to do better."), name: "example_assistant" },
  { message: user("This late pivot means we don't have time to boil the ocean for the client deliverable.") },
];
const COOKBOOK_PROMPT_TOKENS = 124;

const COOKBOOK_TOOLS = [
  {
    type: "function",
    name: "get_current_weather",
    description: "Get the current weather in a given location",
    inputSchema: {
      type: "object",
      properties: {
        location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
        unit: { type: "string", description: "The unit of temperature to return", enum: ["celsius", "fahrenheit"] },
      },
      required: ["location"],
    },
  },
];
const COOKBOOK_TOOLS_PROMPT_TOKENS = 101;

describe("token counts", () => {
  it("match the provider-reported prompt tokens of a published gpt-4o request exactly", async () => {
    const counter = new TokenCounter();
    await counter.load();
    let estimate = REPLY_PRIMING_TOKENS;
    for (const { message, name } of COOKBOOK_MESSAGES) estimate += counter.message(message) + (name ? counter.text(name) + 1 : 0);
    expect(estimate).toBe(COOKBOOK_PROMPT_TOKENS);
  });

  it("overestimate tool definitions sent as JSON by under a fifth (118 vs 101 reported)", async () => {
    const counter = new TokenCounter();
    await counter.load();
    const estimate =
      REPLY_PRIMING_TOKENS +
      counter.message(system("You are a helpful assistant that can answer to questions about the weather.")) +
      counter.message(user("What's the weather like in San Francisco?")) +
      counter.text(JSON.stringify(COOKBOOK_TOOLS));
    const error = (estimate - COOKBOOK_TOOLS_PROMPT_TOKENS) / COOKBOOK_TOOLS_PROMPT_TOKENS;
    expect(error).toBeGreaterThanOrEqual(0);
    expect(error).toBeLessThan(0.2);
  });

  it("are an upper bound until the tokenizer is loaded, and exact after", async () => {
    const counter = new TokenCounter();
    const text = "The quick brown fox jumps over the lazy dog. 敏捷的棕色狐狸跳过了懒狗。";
    expect(counter.exact).toBe(false);
    const bound = counter.text(text);
    expect(bound).toBe(tokenUpperBound(text));
    await counter.load();
    expect(counter.exact).toBe(true);
    const exact = counter.text(text);
    expect(exact).toBeGreaterThan(0);
    expect(exact).toBeLessThanOrEqual(bound);
  });

  it("count a 400 KB word without spaces in linear time, within a token per 256 characters of exact", async () => {
    const counter = new TokenCounter();
    await counter.load();
    // Text without a word over 256 characters is counted whole, exactly.
    const prose = `${"The quick brown fox jumps over the lazy dog. ".repeat(200)}${"z".repeat(256)}`;
    expect(counter.text(prose)).toBe(o200k.countTokens(prose));
    // A longer word is counted in pieces: off by about a token per piece at most.
    const word = "a1b2c3".repeat(1_000);
    expect(Math.abs(counter.text(word) - o200k.countTokens(word))).toBeLessThanOrEqual(Math.ceil(word.length / 256));
    // Counted whole, a 400 KB word took ~35 s of CPU (byte-pair merging is quadratic in a word's length).
    const started = process.cpuUsage();
    expect(counter.text("a1b2".repeat(100_000))).toBeGreaterThan(50_000);
    expect(process.cpuUsage(started).user / 1_000).toBeLessThan(3_000);
  });

  it("count special-token text as text instead of refusing it", async () => {
    const counter = new TokenCounter();
    await counter.load();
    expect(counter.text("before <|endoftext|> after")).toBeGreaterThan(3);
  });

  it("memoize per message and count each part kind", async () => {
    const counter = new TokenCounter();
    await counter.load();
    const assistant: Message = {
      role: "assistant",
      content: [
        { type: "text", text: "Reading it." },
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.ts" } },
      ],
    };
    const tool: Message = {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "x".repeat(400) } }],
    };
    expect(counter.message(assistant)).toBe(messageTokens(assistant, counter.text));
    expect(counter.message(tool)).toBeGreaterThan(TOKENS_PER_MESSAGE + 40);
    expect(counter.message(tool)).toBe(counter.message(tool));
  });
});
