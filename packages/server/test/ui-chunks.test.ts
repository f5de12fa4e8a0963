import type { RunEvent } from "@arbor/core";
import { readUIMessageStream, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { type ArborUIMessage, RunEventChunker } from "../src/protocols/ui-chat/ui-chunks.js";

const S = { session_id: "s1" };

async function fold(chunks: UIMessageChunk[]): Promise<ArborUIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: ArborUIMessage | undefined;
  for await (const m of readUIMessageStream<ArborUIMessage>({ stream, terminateOnError: true })) last = m;
  if (!last) throw new Error("no message");
  return last;
}

describe("run events as UI message chunks", () => {
  it("plan events and model calls become typed data parts the client keeps; deltas become closed blocks", async () => {
    const chunker = new RunEventChunker("s1");
    const events: RunEvent[] = [
      { type: "llm_start", ...S, call_id: "m1", node: "agent", model: "x/y", input: "", motivation: "" },
      { type: "reasoning", ...S, content: "think" },
      { type: "token", ...S, content: "Plan:" },
      {
        type: "llm_end",
        ...S,
        call_id: "m1",
        node: "agent",
        model: "x/y",
        duration_ms: 5,
        total_tokens: 9,
        input: "i",
        output: "o",
      },
      {
        type: "plan_created",
        ...S,
        plan: { plan_id: "p1", title: "Fix it", steps: [{ id: 1, title: "look", status: "pending" }] },
      },
      { type: "plan_updated", ...S, plan_id: "p1", step_id: 1, status: "done" },
      { type: "tool_progress", ...S, call_id: "c9", tool: "mcp", title: "halfway" },
      { type: "token", ...S, content: " done" },
      { type: "done", ...S },
    ];
    const chunks = [chunker.start(), ...events.flatMap((e) => chunker.chunks(e)), ...chunker.finish(12, "stop")];
    const message = await fold(chunks);
    expect(message.metadata).toEqual({ sessionId: "s1", lastEventId: 12 });
    expect(message.parts.map((p) => p.type)).toEqual([
      "step-start",
      "reasoning",
      "text",
      "data-model-call",
      "data-plan-created",
      "data-plan-updated",
      "text",
    ]);
    expect(message.parts.find((p) => p.type === "data-plan-created")).toMatchObject({
      id: "p1",
      data: { plan: { plan_id: "p1", title: "Fix it" } },
    });
    expect(message.parts.find((p) => p.type === "data-model-call")).toMatchObject({ data: { model: "x/y", total_tokens: 9 } });
    expect(message.parts.filter((p) => p.type === "text").map((p) => [p.text, p.state])).toEqual([
      ["Plan:", "done"],
      [" done", "done"],
    ]);
    // Progress is transient: shown live (onData), never kept in the message.
    expect(chunks.some((c) => c.type === "data-tool-progress" && c.transient === true)).toBe(true);
  });

  it("an ask with no call of its own gets one to hang the approval on; a run error is an error chunk", async () => {
    const chunker = new RunEventChunker("s1");
    const ask = chunker.chunks({ type: "permission_request", ...S, id: "ask1", permission: "bash", patterns: ["rm *"] });
    expect(ask).toEqual([
      expect.objectContaining({ type: "tool-input-available", toolCallId: "permission-ask1", toolName: "permission" }),
      expect.objectContaining({ type: "tool-approval-request", approvalId: "ask1", toolCallId: "permission-ask1" }),
    ]);
    const message = await fold([chunker.start(), ...ask, ...chunker.finish(3, "tool-calls")]);
    expect(message.parts.at(-1)).toMatchObject({ type: "dynamic-tool", state: "approval-requested", approval: { id: "ask1" } });
    expect(chunker.chunks({ type: "error", ...S, code: "aborted", content: "stopped" })).toEqual([
      { type: "error", errorText: "aborted: stopped" },
    ]);
  });

  it("each compaction is a part of its own, though every summarizer numbers its calls from 1", async () => {
    const chunker = new RunEventChunker("s1");
    const summary = (n: number): RunEvent[] => [
      { type: "llm_start", ...S, call_id: "compaction_1", node: "compaction", model: "x/y", input: "", motivation: "" },
      {
        type: "llm_end",
        ...S,
        call_id: "compaction_1",
        node: "compaction",
        model: "x/y",
        duration_ms: n,
        output_tokens: n,
        input: "",
        output: "",
      },
    ];
    const chunks = [
      chunker.start(),
      ...[...summary(1), ...summary(2)].flatMap((e) => chunker.chunks(e)),
      ...chunker.finish(4, "stop"),
    ];
    const message = await fold(chunks);
    const parts = message.parts.filter((p) => p.type === "data-compaction");
    expect(parts.map((p) => [p.id, p.data.status, p.data.output_tokens])).toEqual([
      ["compaction-1", "done", 1],
      ["compaction-2", "done", 2],
    ]);
    // A summary call is not a step of the run.
    expect(chunks.some((c) => c.type === "start-step" || c.type === "finish-step")).toBe(false);
  });

  it("watch events become goal and sub-agent parts; message summaries and the trace's end add none", () => {
    const chunker = new RunEventChunker("s1");
    const at = { event_id: 7, timestamp: "2026-01-01T00:00:00.000Z" };
    expect(chunker.watchChunks({ event: "goal_added", ...at, trace_id: "s1", goal: { id: "1" }, parent_id: null })).toEqual([
      { type: "data-goal-added", id: "s1/1", data: { trace_id: "s1", goal: { id: "1" }, parent_id: null } },
    ]);
    expect(
      chunker.watchChunks({ event: "sub_trace_started", ...at, trace_id: "s1@a", parent_trace_id: "s1", agent_type: "explore" }),
    ).toEqual([
      { type: "data-sub-agent-started", id: "s1@a", data: { trace_id: "s1@a", parent_trace_id: "s1", agent_type: "explore" } },
    ]);
    const stats = { total_messages: 1, total_tokens: 0, total_cost: 0 };
    expect(chunker.watchChunks({ event: "trace_completed", ...at, trace_id: "s1", status: "done", stats })).toEqual([]);
  });
});
