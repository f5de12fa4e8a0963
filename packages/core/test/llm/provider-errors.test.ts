import { recordedStream } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { collect, harness } from "../loop/harness.js";
import { serve, serveRecorded } from "./recorded-servers.js";

describe("provider errors a user can act on", () => {
  it("an exhausted OpenAI quota (an error event mid-stream) ends the run at once, naming the model and what to do", async () => {
    const server = await serveRecorded("openai-responses", "openai/openai-error.1.chunks.txt");
    const env = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    const { runtime } = await harness({ env, model: "openai/gpt-5-nano" });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("error");
    expect(server.callCount).toBe(1);
    expect(result.error?.message).toContain("openai/gpt-5-nano");
    expect(result.error?.message).toMatch(/quota/i);
    expect(result.error?.message).toMatch(/billing|plan/i);
  });

  it("a rejected key names the provider's key variable", async () => {
    const server = await serve({
      wire: "anthropic-messages",
      replies: [
        {
          kind: "error",
          status: 401,
          body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
        },
      ],
    });
    const env = { ANTHROPIC_API_KEY: "wrong", ANTHROPIC_BASE_URL: server.baseURL };
    const { runtime } = await harness({ env, model: "anthropic/claude-sonnet-4-5" });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("error");
    expect(server.callCount).toBe(1);
    expect(result.error?.message).toContain("anthropic/claude-sonnet-4-5");
    expect(result.error?.message).toContain("ANTHROPIC_API_KEY");
  });

  it("an unknown model says so and how to pick another", async () => {
    const server = await serve({
      wire: "anthropic-messages",
      replies: [
        {
          kind: "error",
          status: 404,
          body: { type: "error", error: { type: "not_found_error", message: "model: claude-nope" } },
        },
      ],
    });
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.baseURL };
    const { runtime } = await harness({ env, model: "anthropic/claude-nope" });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("error");
    expect(result.error?.message).toContain("anthropic/claude-nope");
    expect(result.error?.message).toContain("--model");
  });

  it("Anthropic's 529 overload is retried after its retry-after, then succeeds", async () => {
    const server = await serve({
      wire: "anthropic-messages",
      replies: [
        {
          kind: "error",
          status: 529,
          headers: { "retry-after": "3" },
          body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        },
        recordedStream("anthropic/anthropic-text.chunks.txt"),
      ],
    });
    const sleeps: number[] = [];
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.baseURL };
    const { runtime } = await harness({
      env,
      model: "anthropic/claude-sonnet-4-5",
      clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) },
    });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    expect(sleeps).toEqual([3000]);
  });
});
