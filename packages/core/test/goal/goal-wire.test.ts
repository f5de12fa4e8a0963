import { describe, expect, it } from "vitest";
import { type GoalTree, GoalTreeSchema } from "../../src/goal/goal-tree.js";
import { goalTreeToWire } from "../../src/goal/goal-wire.js";

const at = "2026-01-01T00:00:00.000Z";
const stats = { messageCount: 3, totalTokens: 120, totalCost: 0.5, preview: "read → edit" };

describe("goalTreeToWire", () => {
  it("renames every field of the tree, its goals and their sub-trace metadata, and keeps trace-id keys as they are", () => {
    const subId = "Main-Trace@explore-20260101000000-001";
    const tree: GoalTree = GoalTreeSchema.parse({
      mission: "ship it",
      currentId: "1",
      nextId: 2,
      goals: [
        {
          id: "1",
          parentId: null,
          type: "agent_call",
          description: "Explore",
          reason: "",
          status: "in_progress",
          agentCallMode: "explore",
          subTraceIds: [subId],
          subTraceMetadata: {
            [subId]: {
              task: "look",
              status: "completed",
              lastMessage: { role: "assistant", content: "found", createdAt: at },
              stats: { messageCount: 2, totalTokens: 10, totalCost: 0 },
            },
          },
          selfStats: stats,
          cumulativeStats: stats,
          createdAt: at,
          updatedAt: at,
        },
      ],
    });
    const wire = goalTreeToWire(tree);
    expect(wire).toEqual({
      mission: "ship it",
      current_id: "1",
      next_id: 2,
      goals: [
        {
          id: "1",
          parent_id: null,
          type: "agent_call",
          description: "Explore",
          reason: "",
          status: "in_progress",
          agent_call_mode: "explore",
          sub_trace_ids: [subId],
          sub_trace_metadata: {
            [subId]: {
              task: "look",
              status: "completed",
              last_message: { role: "assistant", content: "found", created_at: at },
              stats: { message_count: 2, total_tokens: 10, total_cost: 0 },
            },
          },
          self_stats: { message_count: 3, total_tokens: 120, total_cost: 0.5, preview: "read → edit" },
          cumulative_stats: { message_count: 3, total_tokens: 120, total_cost: 0.5, preview: "read → edit" },
          created_at: at,
          updated_at: at,
        },
      ],
    });
  });
});
