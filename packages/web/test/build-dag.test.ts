import { describe, expect, it } from "vitest";
import { buildDag, goalKey } from "../src/views/dag/build-dag.js";
import type { GoalTreeView, GoalView, Stats } from "../src/views/dag/goals.js";

const stats = (messageCount: number): Stats => ({ messageCount, totalTokens: 0, totalCost: 0 });
const goal = (id: string, display: string, parentId: string | null, description: string): GoalView => ({
  id,
  parentId,
  type: "normal",
  description,
  status: "completed",
  subTraceIds: [],
  subTraceMetadata: {},
  selfStats: stats(1),
  cumulativeStats: stats(3),
  display,
});

/** The seed's drawing: 1 → 2 → 3, goal 2 with sub-goals 2.1 and 2.2. */
const tree: GoalTreeView = {
  mission: "m",
  currentId: null,
  goals: [
    goal("g1", "1", null, "Analyse"),
    goal("g2", "2", null, "Implement"),
    goal("g3", "3", null, "Test"),
    goal("g21", "2.1", "g2", "Design"),
    goal("g22", "2.2", "g2", "Code"),
  ],
};

const chainOf = (expanded: string[]) => {
  const dag = buildDag("t", tree, new Set(expanded), new Map());
  return dag.edges.map((e) => `${e.source}->${e.target}`);
};

describe("the goal DAG's expand", () => {
  it("replaces the goal with its sub-goals, as the seed draws it: 1 → 2.1 → 2.2 → 3", () => {
    expect(chainOf([])).toEqual(["start->t:g1", "t:g1->t:g2", "t:g2->t:g3"]);
    const dag = buildDag("t", tree, new Set([goalKey("t", "g2")]), new Map());
    expect(dag.edges.map((e) => `${e.source}->${e.target}`)).toEqual([
      "start->t:g1",
      "t:g1->t:g21",
      "t:g21->t:g22",
      "t:g22->t:g3",
    ]);
    // Goal 2's node is gone; its collapse control and its own messages ride on the edge into 2.1.
    expect(dag.nodes.map((n) => n.id)).not.toContain("t:g2");
    const into = dag.edges.find((e) => e.target === "t:g21");
    expect(into?.groups).toEqual([{ traceId: "t", goalId: "g2", title: "2 Implement", toggleKey: "t#g2", stats: stats(1) }]);
  });
});
