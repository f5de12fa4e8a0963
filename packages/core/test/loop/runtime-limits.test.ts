import { resolveConfig } from "@arbor/core";
import { hang, scriptedModel, startFakeOpenAI, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { collect, harness, transcript } from "./harness.js";

describe("a provider stream that stalls", () => {
  it("is ended after the idle timeout and the step is retried", async () => {
    const model = scriptedModel([[text("I was saying"), hang()], [text("ok")]]);
    const { runtime, store } = await harness({ model, retry: { streamIdleTimeoutMs: 50 } });
    const handle = runtime.run({ prompt: "hi" });
    const { result } = await collect(handle);
    expect(result.status).toBe("done");
    expect(model.remaining).toBe(0);
    expect(await transcript(store, handle.sessionId)).toEqual(["user: hi", "assistant: ok"]);
  });

  it("over HTTP, with the timeout from arbor.json, and fails with a clear error once out of retries", async () => {
    const server = await startFakeOpenAI({ script: [[text("Hel"), hang()], [text("Hel"), hang()], [text("ok")]] });
    try {
      const config = resolveConfig([{ source: "test", value: { baseURL: server.url, llm: { streamIdleTimeoutMs: 50 } } }]);
      const { runtime, store } = await harness({ config, model: "openai-compatible/fake", retry: { maxRetries: 1 } });
      const handle = runtime.run({ prompt: "hi" });
      const { result } = await collect(handle);
      expect(result.status).toBe("error");
      expect(result.error?.message).toContain("streamIdleTimeoutMs");
      expect(await transcript(store, handle.sessionId)).toEqual(["user: hi", "assistant: Hel"]);
      const again = runtime.run({ prompt: "again", sessionId: handle.sessionId });
      expect((await collect(again)).result.status).toBe("done");
    } finally {
      await server.close();
    }
  });
});
