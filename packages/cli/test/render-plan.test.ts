import type { GoalTree } from "@arbor/core/session";
import { describe, expect, it } from "vitest";
import type { Goal } from "../../core/src/goal/goal-tree.js";
import { renderPlan } from "../src/render/trace.js";

const stats = { messageCount: 0, totalTokens: 0, totalCost: 0 };
const at = "2026-11-26T00:00:00.000Z";

function goal(id: string, parentId: string | null, description: string, status: Goal["status"]): Goal {
  return {
    id,
    parentId,
    type: "normal",
    description,
    reason: "",
    status,
    selfStats: stats,
    cumulativeStats: stats,
    createdAt: at,
    updatedAt: at,
  } as Goal;
}

describe("the plan in 'sessions show'", () => {
  it("is a tree numbered as the model sees it, without internal ids, abandoned goals counted", () => {
    // Internal ids 1..5; goal 2 was abandoned, so goal 3 reads "2." and its child "2.1".
    const tree = {
      mission: "Ship the feature",
      goals: [
        goal("1", null, "Read the code", "completed"),
        goal("2", null, "A dead end", "abandoned"),
        goal("3", null, "Write it", "in_progress"),
        goal("4", "3", "The API", "pending"),
        goal("5", "4", "Its tests", "pending"),
      ],
    } as unknown as GoalTree;
    expect(renderPlan(tree)).toEqual([
      "Plan: Ship the feature",
      "  [✓] 1. Read the code",
      "  [→] 2. Write it",
      "    [ ] 2.1 The API",
      "      [ ] 2.1.1 Its tests",
      "  (1 abandoned goal not shown)",
    ]);
  });
});
