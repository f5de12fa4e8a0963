import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/model/entry.js";
import { timelineLane, timelineSpans } from "../../src/trace/timeline.js";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();
let n = 0;
const entry = (ms: number, fields: Record<string, unknown>): Entry =>
  ({ id: `e${++n}`, parentId: null, timestamp: at(ms), ...fields }) as Entry;

describe("timeline spans", () => {
  it("end at their entry's time, keep a tool's permission wait apart, and pair sub-agents with their results", () => {
    const path: Entry[] = [
      entry(0, { type: "message", message: { role: "user", content: [{ type: "text", text: "go" }] } }),
      entry(1_000, {
        type: "message",
        message: {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: {} }],
          model: "p/m",
          durationMs: 900,
          tokens: { input: 100, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
          cost: 0.002,
        },
      }),
      entry(4_000, {
        type: "message",
        message: {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "ok" } }],
          durationMs: 500,
          permissionWaitMs: 2_000,
        },
      }),
      entry(4_100, {
        type: "subagent_batch",
        batchId: "b",
        mode: "explore",
        tasks: [
          { task: "one", subSessionId: "s@1" },
          { task: "two", subSessionId: "s@2" },
        ],
      }),
      entry(6_000, { type: "subagent_result", batchId: "b", subSessionId: "s@1", status: "completed", summary: "found" }),
      entry(7_000, {
        type: "compaction",
        summary: "sum",
        firstKeptEntryId: null,
        tokensBefore: 5000,
        details: { durationMs: 300, usage: { input: 50, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, cost: 0.001 },
      }),
    ];
    const spans = timelineSpans(path, T0 + 8_000);
    expect(spans.map((s) => [s.kind, s.start - T0, s.end - T0])).toEqual([
      ["model", 100, 1_000],
      ["tool", 1_500, 4_000],
      ["subagent", 4_100, 6_000],
      // The second branch has no result yet: it runs until now.
      ["subagent", 4_100, 8_000],
      ["compaction", 6_700, 7_000],
    ]);
    expect(spans[1]).toMatchObject({ kind: "tool", tool: "bash", duration_ms: 500, wait_ms: 2_000, is_error: false });
    expect(spans[0]).toMatchObject({ model: "p/m", cost: 0.002, tokens: { input: 100, output: 10 } });
    expect(spans[3]).toMatchObject({ label: "two", open: true, status: "running" });
    expect(spans[4]).toMatchObject({ tokens_before: 5000, cost: 0.001, tokens: { input: 50 } });

    const lane = timelineLane({ id: "s", agentType: "main", createdAt: at(0) }, path, [], T0 + 8_000);
    expect([lane.start - T0, lane.end - T0]).toEqual([0, 8_000]);
  });
});
