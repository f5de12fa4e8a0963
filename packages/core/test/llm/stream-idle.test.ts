import { delay, hang, scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { StreamIdleError, streamStep } from "../../src/llm/stream-step.js";

const SILENT = { text: () => {}, reasoning: () => {} };

describe("a stream's idle limit", () => {
  it("counts from the latest part: parts closer together than the limit never idle, however long the stream", async () => {
    // Seven gaps of 30 ms with a 60 ms limit: 210 ms in all, over three times the limit.
    const parts = Array.from({ length: 7 }, (_, i) => [delay(30), text(`part ${i} `)]).flat();
    const model = scriptedModel([[...parts, text("done")]]);
    const result = await streamStep(model, { prompt: [] }, SILENT, 60);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("part 0 part 1 part 2 part 3 part 4 part 5 part 6 done");
  });

  it("ends a stream that stops sending, once the limit has passed since its latest part", async () => {
    const model = scriptedModel([[delay(30), text("I was saying"), delay(30), text(" more"), hang()]]);
    const started = performance.now();
    const result = await streamStep(model, { prompt: [] }, SILENT, 60);
    const took = performance.now() - started;
    expect(result.error).toBeInstanceOf(StreamIdleError);
    expect(result.text).toBe("I was saying more");
    // Two gaps of 30 ms, then the limit of 60 ms from the last part: not before.
    expect(took).toBeGreaterThanOrEqual(115);
  });
});
