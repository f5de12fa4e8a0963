import {
  delay,
  error,
  finish,
  hang,
  malformed,
  manualClock,
  reasoning,
  type Script,
  text,
  toolCall,
  usage,
} from "@arbor/testkit";
import OpenAI, { APIError, APIUserAbortError, RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { failureOf, fakeOpenAIForTest } from "./helpers.js";

// The official client is the referee for the wire format. Retries off: a 429 must surface, not be retried.
async function serve(script: Script, options: { clock?: ReturnType<typeof manualClock> } = {}) {
  const server = await fakeOpenAIForTest({ script, model: "fake-gpt", ...options });
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test-key", maxRetries: 0, logLevel: "off" });
  return { server, client };
}

const user = [{ role: "user" as const, content: "hi" }];

describe("fake OpenAI server through the official openai client", () => {
  it("listens on 127.0.0.1 and lists the scripted model", async () => {
    const { server, client } = await serve([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.baseURL).toBe(`${server.url}/v1`);
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(["fake-gpt"]);
  });

  it("streams text as role, content deltas and finish_reason chunks, ending at [DONE]", async () => {
    const { server, client } = await serve([[text("Hello there", { chunks: 4 })]]);
    const stream = await client.chat.completions.create({ model: "fake-gpt", messages: user, stream: true });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello there");
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(4);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0]?.id && c.model === "fake-gpt")).toBe(
      true,
    );
    // Without stream_options.include_usage there is no usage anywhere.
    expect(chunks.some((c) => "usage" in c)).toBe(false);
    expect(server.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      body: { stream: true, messages: user },
    });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer test-key");
  });

  it("streams tool calls as index/id/name deltas then argument fragments that reassemble", async () => {
    const { client } = await serve([
      [
        text("Let me look."),
        toolCall("read", { path: "src/a.ts", range: [1, 20] }, { chunks: 5 }),
        toolCall("grep", { pattern: "TODO" }, { id: "call_grep", chunks: 3 }),
      ],
    ]);
    const stream = await client.chat.completions.create({ model: "fake-gpt", messages: user, stream: true });
    const deltas = [];
    for await (const chunk of stream) deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(deltas[0]).toEqual({ index: 0, id: "call_0_0", type: "function", function: { name: "read", arguments: "" } });
    expect(deltas.filter((d) => d.index === 0 && d.function?.arguments).length).toBe(5);
    expect(deltas.filter((d) => d.index === 1 && !d.id).every((d) => d.function?.name === undefined)).toBe(true);

    // The client's own accumulator is the proof the fragments are framed as OpenAI frames them.
    const { client: second } = await serve([
      [
        text("Let me look."),
        toolCall("read", { path: "src/a.ts" }, { chunks: 5 }),
        toolCall("grep", { pattern: "TODO" }, { chunks: 3 }),
      ],
    ]);
    const final = await second.chat.completions.stream({ model: "fake-gpt", messages: user }).finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(message?.content).toBe("Let me look.");
    expect(
      message?.tool_calls?.map((c) => (c.type === "function" ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : [])),
    ).toEqual([
      ["call_0_0", "read", { path: "src/a.ts" }],
      ["call_0_1", "grep", { pattern: "TODO" }],
    ]);
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("sends a final usage chunk with empty choices when include_usage is set", async () => {
    const { client } = await serve([
      [reasoning("hmm"), text("ok"), usage({ inputTokens: 50, outputTokens: 12, reasoningTokens: 4, cacheReadTokens: 30 })],
    ]);
    const stream = await client.chat.completions.create({
      model: "fake-gpt",
      messages: user,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({
      prompt_tokens: 50,
      completion_tokens: 12,
      total_tokens: 62,
      prompt_tokens_details: { cached_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 4 },
    });
    const reasoningText = chunks.map(
      (c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "",
    );
    expect(reasoningText.join("")).toBe("hmm");
  });

  it("answers a non-streaming request with a whole chat.completion", async () => {
    const { client } = await serve([
      [
        text("Hi", { chunks: 2 }),
        toolCall("list", { dir: "." }),
        usage({ inputTokens: 9, outputTokens: 3 }),
        finish("tool-calls"),
      ],
    ]);
    const result = await client.chat.completions.create({ model: "fake-gpt", messages: user });
    expect(result.object).toBe("chat.completion");
    expect(result.choices[0]?.message).toMatchObject({
      role: "assistant",
      content: "Hi",
      tool_calls: [{ id: "call_0_0", type: "function", function: { name: "list", arguments: '{"dir":"."}' } }],
    });
    expect(result.choices[0]?.finish_reason).toBe("tool_calls");
    expect(result.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
  });

  it("surfaces a 429 with retry-after as the client's RateLimitError with status and header", async () => {
    const { client } = await serve([[error(429, { retryAfter: 7, message: "slow down" })]]);
    const failure = await failureOf(client.chat.completions.create({ model: "fake-gpt", messages: user, stream: true }));
    expect(failure).toBeInstanceOf(RateLimitError);
    const e = failure as RateLimitError;
    expect(e.status).toBe(429);
    expect(e.headers.get("retry-after")).toBe("7");
    expect(e.code).toBe("rate_limit_exceeded");
    expect(e.message).toContain("slow down");
    expect(e.requestID).toBe("req_testkit_0");
  });

  it("answers 5xx with an OpenAI error body too", async () => {
    const { client } = await serve([[error(503, { headers: { "retry-after-ms": "250" } })]]);
    const e = (await failureOf(client.chat.completions.create({ model: "fake-gpt", messages: user }))) as APIError;
    expect(e).toBeInstanceOf(APIError);
    expect(e.status).toBe(503);
    expect(e.type).toBe("server_error");
    expect(e.headers?.get("retry-after-ms")).toBe("250");
  });

  it("writes data: lines, a blank line after each event, and data: [DONE] last", async () => {
    const { server } = await serve([[text("a")]]);
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: user, stream: true }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const body = await response.text();
    expect(body.endsWith("\n\ndata: [DONE]\n\n")).toBe(true);
    const events = body.split("\n\n").filter(Boolean);
    expect(events.every((e) => e.startsWith("data: ") && !e.includes("\n"))).toBe(true);
    expect(events.slice(0, -1).map((e) => JSON.parse(e.slice(6)).choices[0].finish_reason)).toEqual([null, null, "stop"]);
  });

  it("reports an in-stream error event as the client's APIError after the output before it", async () => {
    const { client } = await serve([[text("partial"), error(500, { at: "part", message: "boom" })]]);
    const stream = await client.chat.completions.create({ model: "fake-gpt", messages: user, stream: true });
    const seen: string[] = [];
    const failure = await failureOf(async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "");
    });
    expect(seen.join("")).toBe("partial");
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).message).toContain("boom");
  });

  it("sends broken SSE for a malformed step, which the client refuses", async () => {
    const { client } = await serve([[text("a"), malformed()]]);
    const stream = await client.chat.completions.create({ model: "fake-gpt", messages: user, stream: true });
    const failure = await failureOf(async () => {
      for await (const _ of stream);
    });
    expect(failure).toBeInstanceOf(SyntaxError);
  });

  it("keeps a hanging stream open until the client disconnects", async () => {
    const { server, client } = await serve([[text("first"), hang()], [text("after")]]);
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "fake-gpt", messages: user, stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    // The client ends iteration quietly on its own abort; what matters is that nothing came after "first".
    for await (const chunk of stream) {
      seen.push(chunk.choices[0]?.delta.content ?? "");
      if (seen.join("") === "first") controller.abort();
    }
    expect(seen.join("")).toBe("first");
    // The server notices the disconnect and lets the hanging response go.
    while (server.active > 0) await new Promise((r) => setImmediate(r));
    await expect(
      client.chat.completions.create({ model: "fake-gpt", messages: user }, { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(APIUserAbortError);
    // The server is free for the next request after the disconnect.
    const next = await client.chat.completions.create({ model: "fake-gpt", messages: user });
    expect(next.choices[0]?.message.content).toBe("after");
    expect(server.callCount).toBe(2);
  });

  it("drops a request hanging before its headers on close()", async () => {
    const { server, client } = await serve([[hang()]]);
    const pending = failureOf(client.chat.completions.create({ model: "fake-gpt", messages: user, stream: true }));
    while (server.callCount === 0) await new Promise((r) => setImmediate(r));
    await server.close();
    expect(await pending).toBeInstanceOf(APIError);
  });

  it("plays delays on the injected clock", async () => {
    const clock = manualClock();
    const { client } = await serve([[delay(5000), text("late")]], { clock });
    let done = false;
    const call = client.chat.completions.create({ model: "fake-gpt", messages: user }).then((r) => {
      done = true;
      return r;
    });
    await clock.whenSleeping();
    await clock.advance(4999);
    expect(done).toBe(false);
    await clock.advance(1);
    expect((await call).choices[0]?.message.content).toBe("late");
  });

  it("fails clearly and without retry when the script runs out", async () => {
    const { client } = await serve([]);
    const e = (await failureOf(client.chat.completions.create({ model: "fake-gpt", messages: user }))) as APIError;
    expect(e).toBeInstanceOf(APIError);
    expect(e.status).toBe(400);
    expect(e.message).toContain("fake OpenAI server: call #1 but the script has only 0 steps");
  });

  it("answers embeddings outside the script: a hashed bag of words by default, or the given function", async () => {
    const { server, client } = await serve([]);
    const result = await client.embeddings.create({ model: "embed-1", input: ["red apple", "apple red", "blue sky"] });
    const [a, b, c] = result.data.map((d) => d.embedding);
    expect(result.model).toBe("embed-1");
    expect(a).toHaveLength(64);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(server.callCount).toBe(0);
    const custom = await fakeOpenAIForTest({ script: [], embed: (t) => [t.length, 1] });
    const other = new OpenAI({ baseURL: custom.baseURL, apiKey: "k", maxRetries: 0, logLevel: "off" });
    const one = await other.embeddings.create({ model: "m", input: "four", encoding_format: "float" });
    expect(one.data[0]!.embedding).toEqual([4, 1]);
    await expect(other.embeddings.create({ model: "m", input: [] })).rejects.toMatchObject({ status: 400 });
  });

  it("answers unknown routes and bad JSON as OpenAI does", async () => {
    const { server } = await serve([[text("unused")]]);
    const notFound = await fetch(`${server.baseURL}/images/generations`, { method: "POST", body: "{}" });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: { code: "unknown_url" } });
    const bad = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect(server.requests.map((r) => r.body)).toEqual([{}, "{not json"]);
    expect(server.callCount).toBe(0);
  });
});
