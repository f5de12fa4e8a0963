import { describe, expect, it } from "vitest";
import { limitToolCalls, MAX_STEP_INPUT_BYTES } from "../../src/loop/tool-limits.js";

const limits = { maxCallsPerStep: 10, concurrency: 2, maxInputBytes: 1024 * 1024 };

function call(id: string, bytes: number) {
  const inputText = JSON.stringify({ data: "x".repeat(bytes) });
  return {
    part: { type: "tool-call" as const, toolCallId: id, toolName: "write", input: JSON.parse(inputText) as unknown },
    call: { toolCallId: id, toolName: "write", inputText },
  };
}

describe("limitToolCalls", () => {
  it("refuses the calls past the step's total of arguments, dropping what they carried", () => {
    const all = Array.from({ length: 6 }, (_, i) => call(`c${i}`, 900 * 1024));
    const out = limitToolCalls(
      all.map((c) => c.part),
      all.map((c) => c.call),
      limits,
    );
    expect([...out.refusals.keys()]).toEqual(["c4", "c5"]);
    expect(out.refusals.get("c4")).toContain(`${MAX_STEP_INPUT_BYTES} bytes together`);
    expect(JSON.stringify(out.content).length).toBeLessThan(MAX_STEP_INPUT_BYTES);
    expect(out.calls[5]?.inputText).toContain("not stored");
    expect(out.calls[0]).toBe(all[0]?.call);
  });

  it("leaves a step within its limits as it was", () => {
    const all = [call("a", 10), call("b", 20)];
    const out = limitToolCalls(
      all.map((c) => c.part),
      all.map((c) => c.call),
      limits,
    );
    expect(out.refusals.size).toBe(0);
    expect(out.content).toEqual(all.map((c) => c.part));
    expect(out.calls).toEqual(all.map((c) => c.call));
  });
});
