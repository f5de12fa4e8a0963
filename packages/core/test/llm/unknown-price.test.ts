import { describe, expect, it } from "vitest";
import { collect, harness } from "../loop/harness.js";
import { serveRecorded } from "./recorded-servers.js";

/** A model the catalog has no price for must not look free. */
describe("a run's cost when a model has no known price", () => {
  async function run(model: string) {
    const server = await serveRecorded("anthropic-messages", "anthropic/anthropic-issue-5942-cache-read.chunks.txt");
    const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.baseURL };
    const { runtime } = await harness({ env, model });
    return (await collect(runtime.runs.run({ prompt: "Summarize the document." }))).result;
  }

  it("says the cost is unknown instead of reporting $0", async () => {
    const result = await run("anthropic/claude-not-in-the-catalog");
    expect(result.status).toBe("done");
    expect(result.usage.input).toBeGreaterThan(0);
    expect(result.costKnown).toBe(false);
  });

  it("leaves a priced model's cost as it is", async () => {
    const result = await run("anthropic/claude-sonnet-4-5");
    expect(result.cost).toBeGreaterThan(0);
    expect(result.costKnown).toBeUndefined();
  });
});
