import type { LanguageModelV4CallOptions, LanguageModelV4Message } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { canonicalJson, decodeValue, encodeValue } from "../../src/llm/cache/json-value.js";
import { cacheKey, replayKey, requestWindow } from "../../src/llm/cache/request-key.js";

const user = (text: string): LanguageModelV4Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): LanguageModelV4Message => ({ role: "assistant", content: [{ type: "text", text }] });

function options(
  messages: LanguageModelV4Message[],
  extra: Partial<LanguageModelV4CallOptions> = {},
): LanguageModelV4CallOptions {
  return { prompt: [{ role: "system", content: "You are helpful." }, ...messages], temperature: 0.7, ...extra };
}

const history = [user("one"), assistant("two"), user("three"), assistant("four"), user("five")];

describe("request keys", () => {
  it("window: the leading system messages, the three messages before the last, and the last", () => {
    const w = requestWindow(options(history).prompt);
    expect(w.system).toBe("You are helpful.");
    expect(w.message).toEqual(user("five"));
    expect(w.history).toEqual([assistant("two"), user("three"), assistant("four")]);
    expect(requestWindow([{ role: "system", content: "s" }])).toEqual({ system: "s", history: [], message: undefined });
    expect(requestWindow(options([user("only")]).prompt).history).toEqual([]);
  });

  it("the cache key follows its documented inputs and ignores history older than the window", () => {
    const base = cacheKey(options(history), "openai/gpt-4o");
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    // Older history is outside the key (the trade for constant-time keys).
    expect(cacheKey(options([user("changed"), ...history.slice(1)]), "openai/gpt-4o")).toBe(base);
    // Each of system prompt, window, new message, model and temperature counts.
    expect(
      cacheKey({ ...options(history), prompt: [{ role: "system", content: "Other" }, ...history] }, "openai/gpt-4o"),
    ).not.toBe(base);
    expect(cacheKey(options([...history.slice(0, 2), user("3"), ...history.slice(3)]), "openai/gpt-4o")).not.toBe(base);
    expect(cacheKey(options([...history.slice(0, 4), user("5")]), "openai/gpt-4o")).not.toBe(base);
    expect(cacheKey(options(history), "openai/gpt-4o-mini")).not.toBe(base);
    expect(cacheKey(options(history, { temperature: 0 }), "openai/gpt-4o")).not.toBe(base);
    // The tools offered count too: a recorded answer may call one.
    const tool = { type: "function" as const, name: "read", inputSchema: { type: "object" as const } };
    expect(cacheKey(options(history, { tools: [tool] }), "openai/gpt-4o")).not.toBe(base);
    // What does not change the answer does not change the key.
    expect(cacheKey(options(history, { abortSignal: new AbortController().signal }), "openai/gpt-4o")).toBe(base);
  });

  it("keys do not depend on the order object keys were written in", () => {
    const a: LanguageModelV4Message = {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a", limit: 3 } }],
    };
    const b: LanguageModelV4Message = {
      content: [{ input: { limit: 3, path: "a" }, toolName: "read", toolCallId: "c1", type: "tool-call" }],
      role: "assistant",
    };
    expect(cacheKey(options([user("x"), a]), "m/m")).toBe(cacheKey(options([user("x"), b]), "m/m"));
  });

  it("the replay key ignores the system prompt, model, settings and the order of one step's tool results", () => {
    const base = replayKey(options(history));
    expect(
      replayKey({ ...options(history, { temperature: 0 }), prompt: [{ role: "system", content: "cwd: /tmp/x" }, ...history] }),
    ).toBe(base);
    expect(replayKey(options([...history.slice(0, 4), user("5")]))).not.toBe(base);
    // What the model said last counts; what came before it was checked at an earlier call.
    expect(replayKey(options([...history.slice(0, 3), assistant("4"), user("five")]))).not.toBe(base);
    expect(replayKey(options([user("changed"), ...history.slice(1)]))).toBe(base);

    const calls: LanguageModelV4Message = {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "a", toolName: "read", input: {} },
        { type: "tool-call", toolCallId: "b", toolName: "read", input: {} },
      ],
    };
    const result = (id: string, value: string): LanguageModelV4Message => ({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: id, toolName: "read", output: { type: "text", value } }],
    });
    const ab = replayKey(options([user("go"), calls, result("a", "1"), result("b", "2")]));
    expect(replayKey(options([user("go"), calls, result("b", "2"), result("a", "1")]))).toBe(ab);
    expect(replayKey(options([user("go"), calls, result("a", "1"), result("b", "3")]))).not.toBe(ab);
  });

  it("JSON for SDK values gives back dates, bytes and URLs, and data that looks like a tag", () => {
    const value = {
      at: new Date("2026-01-02T03:04:05.678Z"),
      bytes: new Uint8Array([1, 2, 255]),
      url: new URL("https://example.com/a?b=1"),
      tagLike: { $date: "not a date" },
      list: [1, "two", null],
      skipped: undefined,
    };
    const round = decodeValue(JSON.parse(JSON.stringify(encodeValue(value))));
    expect(round).toEqual({
      at: value.at,
      bytes: value.bytes,
      url: value.url,
      tagLike: { $date: "not a date" },
      list: [1, "two", null],
    });
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
  });
});
