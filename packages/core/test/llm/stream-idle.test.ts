import { delay, hang, scriptedModel, text } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StreamIdleError, streamStep } from "../../src/llm/stream-step.js";

const SILENT = { text: () => {}, reasoning: () => {} };

describe("a stream's idle limit", () => {
  // The idle timer, the clock it reads and the script's delays run on fake time, advanced by hand: on
  // real timers a loaded machine that ran a 30 ms delay's callback 30 ms late made a stream idle that
  // never was (a CI run failed so).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts from the latest part: parts closer together than the limit never idle, however long the stream", async () => {
    // Seven gaps of 30 ms with a 60 ms limit: 210 ms in all, over three times the limit.
    const parts = Array.from({ length: 7 }, (_, i) => [delay(30), text(`part ${i} `)]).flat();
    const model = scriptedModel([[...parts, text("done")]]);
    const pending = streamStep(model, { prompt: [] }, SILENT, 60);
    await vi.advanceTimersByTimeAsync(500);
    const result = await pending;
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("part 0 part 1 part 2 part 3 part 4 part 5 part 6 done");
  });

  it("ends a stream that stops sending, once the limit has passed since its latest part", async () => {
    const model = scriptedModel([[delay(30), text("I was saying"), delay(30), text(" more"), hang()]]);
    const started = performance.now();
    const pending = streamStep(model, { prompt: [] }, SILENT, 60);
    let endedAt = Number.NaN;
    void pending.then(() => {
      endedAt = performance.now();
    });
    await vi.advanceTimersByTimeAsync(500);
    const result = await pending;
    const took = endedAt - started;
    expect(result.error).toBeInstanceOf(StreamIdleError);
    expect(result.text).toBe("I was saying more");
    // Two gaps of 30 ms, then the limit of 60 ms from the last part: not before, and not much after.
    expect(took).toBeGreaterThanOrEqual(120);
    expect(took).toBeLessThan(130);
  });
});
