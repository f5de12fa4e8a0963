import { describe, expect, it } from "vitest";
import { RunEventSchema } from "../src/model/run-events.js";

describe("run events", () => {
  it("accepts the wire format's events with their field names", () => {
    const events = [
      { type: "token", session_id: "s", content: "Hel" },
      { type: "tool_start", session_id: "s", call_id: "c1", tool: "read", input: '{"path":"a"}', motivation: "read the file" },
      {
        type: "tool_end",
        session_id: "s",
        call_id: "c1",
        tool: "read",
        output: "x",
        cached: false,
        is_error: false,
        duration_ms: 3,
      },
      {
        type: "llm_start",
        session_id: "s",
        call_id: "l1",
        node: "agent",
        model: "openai/gpt-4o",
        input: "hi",
        motivation: "answer",
      },
      {
        type: "llm_end",
        session_id: "s",
        call_id: "l1",
        node: "agent",
        model: "openai/gpt-4o",
        duration_ms: 10,
        input_tokens: 5,
        output_tokens: 2,
        total_tokens: 7,
        input: "hi",
        output: "Hello",
      },
      {
        type: "plan_created",
        session_id: "s",
        plan: { plan_id: "p", title: "T", steps: [{ id: 1, title: "a", status: "pending" }] },
      },
      { type: "plan_updated", session_id: "s", plan_id: "p", step_id: 1, status: "running" },
      { type: "plan_revised", session_id: "s", plan_id: "p", revised_steps: [], keep_completed: 1, reason: "r" },
      { type: "plan_approval_request", session_id: "s", plan_id: "p", title: "T", steps: [] },
      { type: "permission_request", session_id: "s", id: "perm_1", permission: "bash", patterns: ["rm -rf x"] },
      { type: "error", session_id: "s", content: "boom", code: "provider_error" },
      { type: "done", session_id: "s" },
    ];
    for (const e of events) expect(RunEventSchema.parse(e)).toEqual(e);
  });

  it("refuses unknown types and missing fields", () => {
    expect(RunEventSchema.safeParse({ type: "tokens", session_id: "s", content: "x" }).success).toBe(false);
    expect(RunEventSchema.safeParse({ type: "tool_end", session_id: "s", tool: "read" }).success).toBe(false);
  });
});
