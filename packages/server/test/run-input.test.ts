import type { RunEvent } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { QueuedChatSchema } from "../src/cluster/queues.js";
import { askOf } from "../src/protocols/shared/asks.js";
import { toRunInput } from "../src/protocols/shared/run-input.js";

const S = { session_id: "s1" };

describe("the protocols' shared translator", () => {
  it("maps a turn to the runtime's input: given fields only, debug as a level, busy sessions refused", () => {
    expect(toRunInput({ message: "hi" })).toEqual({ prompt: "hi", busy: "reject" });
    expect(
      toRunInput({
        message: "hi",
        sessionId: "s1",
        fromEntryId: "e1",
        agent: "plan",
        model: "openai/gpt-4o",
        thinking: "high",
        debug: true,
        maxTurns: 3,
        requestKey: "k1",
      }),
    ).toEqual({
      prompt: "hi",
      busy: "reject",
      sessionId: "s1",
      fromEntryId: "e1",
      agent: "plan",
      model: "openai/gpt-4o",
      thinking: "high",
      debug: "standard",
      maxTurns: 3,
      requestKey: "k1",
    });
    expect(toRunInput({ message: "hi", newSessionId: "chat-1", debug: false })).toEqual({
      prompt: "hi",
      busy: "reject",
      newSessionId: "chat-1",
      debug: "off",
    });
  });

  it("runs a queued cluster chat through the same mapping", () => {
    const { key, ...turn } = QueuedChatSchema.parse({ sessionId: "s1", key: "k1", message: "hi", debug: "full" });
    expect(toRunInput({ ...turn, requestKey: key })).toEqual({
      prompt: "hi",
      busy: "reject",
      sessionId: "s1",
      debug: "full",
      requestKey: "k1",
    });
  });

  it("reads permission asks and plan approvals off the run events, and nothing else", () => {
    const permission: RunEvent = { type: "permission_request", ...S, id: "p1", permission: "read", patterns: [".env"] };
    expect(askOf(permission)).toEqual({ kind: "permission", id: "p1", event: permission });
    const plan: RunEvent = { type: "plan_approval_request", ...S, plan_id: "plan1", title: "Check", steps: [] };
    expect(askOf(plan)).toEqual({ kind: "plan", planId: "plan1", event: plan });
    expect(askOf({ type: "token", ...S, content: "x" })).toBeUndefined();
  });
});
