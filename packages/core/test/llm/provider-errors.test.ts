import { describe, expect, it } from "vitest";
import { collect } from "../loop/harness.js";
import { replay } from "./recorded-servers.js";

/** An error answer of Anthropic's Messages API. */
function anthropicError(status: number, type: string, message: string) {
  return { kind: "error" as const, status, body: { type: "error", error: { type, message } } };
}

describe("provider errors a user can act on", () => {
  it("an exhausted OpenAI quota (an error event mid-stream) ends the run at once, naming the model and what to do", async () => {
    const { server, runtime } = await replay("openai/gpt-5-nano", "openai-responses", ["openai/openai-error.1.chunks.txt"]);
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("error");
    expect(server.callCount).toBe(1);
    expect(result.error?.message).toContain("openai/gpt-5-nano");
    expect(result.error?.message).toMatch(/quota/i);
    expect(result.error?.message).toMatch(/billing|plan/i);
  });

  it("a rejected key names the provider's key variable", async () => {
    const { server, runtime } = await replay(
      "anthropic/claude-sonnet-4-5",
      "anthropic-messages",
      [anthropicError(401, "authentication_error", "invalid x-api-key")],
      { env: { ANTHROPIC_API_KEY: "wrong" } },
    );
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("error");
    expect(server.callCount).toBe(1);
    expect(result.error?.message).toContain("anthropic/claude-sonnet-4-5");
    expect(result.error?.message).toContain("ANTHROPIC_API_KEY");
  });

  it("an unknown model says so and how to pick another", async () => {
    const { runtime } = await replay("anthropic/claude-nope", "anthropic-messages", [
      anthropicError(404, "not_found_error", "model: claude-nope"),
    ]);
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("error");
    expect(result.error?.message).toContain("anthropic/claude-nope");
    expect(result.error?.message).toContain("--model");
  });

  it("Anthropic's 529 overload is retried after its retry-after, then succeeds", async () => {
    const sleeps: number[] = [];
    const { runtime } = await replay(
      "anthropic/claude-sonnet-4-5",
      "anthropic-messages",
      [
        { ...anthropicError(529, "overloaded_error", "Overloaded"), headers: { "retry-after": "3" } },
        "anthropic/anthropic-text.chunks.txt",
      ],
      { clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) } },
    );
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    expect(sleeps).toEqual([3000]);
  });
});
