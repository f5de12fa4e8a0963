import { setImmediate as turnEnd } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { branchProgressTracker } from "../../src/subagents/branch-progress.js";
import type { ToolProgress } from "../../src/tools/tool.js";

const llmEnd = { type: "llm_end" } as never;
const toolStart = (tool: string) => ({ type: "tool_start", tool }) as never;

describe("branchProgressTracker", () => {
  it("reports once for what moved within a turn, and the last branch's end at once", async () => {
    const reports: ToolProgress[] = [];
    const tracker = branchProgressTracker(
      ["a", "b", "c"].map((task) => ({ task, traceId: `t-${task}` })),
      (update) => reports.push(update),
    );
    tracker.see(llmEnd, "t-a");
    tracker.see(toolStart("read"), "t-a");
    tracker.see(llmEnd, "t-b");
    tracker.see({ type: "text_delta" } as never, "t-c");
    expect(reports).toHaveLength(0);
    await turnEnd();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.title).toBe("0/3 branches done · #1 read (1 step) · #2 thinking (1 step) · #3 thinking (0 steps)");

    tracker.ended("t-a", "completed");
    tracker.ended("t-b", "failed");
    await turnEnd();
    expect(reports.map((r) => r.title)).toHaveLength(2);
    expect(reports[1]!.title).toBe("2/3 branches done · #3 thinking (0 steps)");

    tracker.see(llmEnd, "t-c");
    tracker.ended("t-c", "completed");
    // No turn waited for: the batch's call ends right after its last branch.
    expect(reports).toHaveLength(3);
    expect(reports[2]).toMatchObject({
      title: "3/3 branches done",
      metadata: {
        branches: [
          { task: "a", status: "done", steps: 1, lastTool: "read" },
          { task: "b", status: "failed", steps: 1 },
          { task: "c", status: "done", steps: 1 },
        ],
      },
    });
    await turnEnd();
    expect(reports).toHaveLength(3);
  });
});
