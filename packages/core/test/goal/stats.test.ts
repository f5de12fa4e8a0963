import { describe, expect, it } from "vitest";
import { createGoalTree, type GoalTree } from "../../src/goal/goal-tree.js";
import { addSubTraceStats, MAX_PREVIEW_SEGMENTS, recordMessage, toolPreview } from "../../src/goal/stats.js";
import { deepFreeze, invalidInputMessage, planOf } from "./helpers.js";

/** 1. Analyse, 2. Build (2.1 Design, 2.2 Code (2.2.1 Endpoint)) */
function plan(): GoalTree {
  return planOf(
    "Ship login",
    { add: "Analyse, Build" },
    { add: "Design, Code", under: "2" },
    { add: "Endpoint", under: "2.2" },
    { focus: "2.2.1" },
  );
}
const idOf = (tree: GoalTree, description: string) => tree.goals.find((g) => g.description === description)!.id;
const goal = (tree: GoalTree, description: string) => tree.goals.find((g) => g.description === description)!;

describe("toolPreview", () => {
  it("joins tool names with arrows and collapses consecutive repeats", () => {
    expect(toolPreview(["glob", "read", "read"])).toBe("glob → read × 2");
    expect(toolPreview(["glob", "read", "edit", "edit", "edit", "edit", "edit", "bash"])).toBe("glob → read → edit × 5 → bash");
    expect(toolPreview(["read", "edit", "read"])).toBe("read → edit → read");
    expect(toolPreview([])).toBe("");
  });
});

describe("recordMessage", () => {
  it("adds to the goal's own stats and to the cumulative stats of it and every ancestor", () => {
    let tree = plan();
    const endpoint = idOf(tree, "Endpoint");
    tree = recordMessage(tree, endpoint, { tokens: 1200, cost: 0.01, toolNames: ["glob", "read"] }).tree;
    const result = recordMessage(tree, endpoint, { tokens: 800, cost: 0.02, toolNames: ["read"] });
    expect(result.affectedGoals).toEqual([endpoint, idOf(tree, "Code"), idOf(tree, "Build")]);
    const stats = { messageCount: 2, totalTokens: 2000, totalCost: 0.03, preview: "glob → read × 2" };
    expect(goal(result.tree, "Endpoint")).toMatchObject({ selfStats: stats, cumulativeStats: stats });
    expect(goal(result.tree, "Code")).toMatchObject({
      selfStats: { messageCount: 0, totalTokens: 0, totalCost: 0 },
      cumulativeStats: stats,
    });
    expect(goal(result.tree, "Build").cumulativeStats).toEqual(stats);
    expect(goal(result.tree, "Design").cumulativeStats).toEqual({ messageCount: 0, totalTokens: 0, totalCost: 0 });
    expect(goal(result.tree, "Analyse").cumulativeStats.messageCount).toBe(0);
  });

  it("rolls the worked example's numbers up: the parent's preview is its subtree's tool sequence in arrival order", () => {
    let tree = plan();
    tree = recordMessage(tree, idOf(tree, "Build"), { tokens: 100, toolNames: ["glob"] }).tree;
    tree = recordMessage(tree, idOf(tree, "Design"), { tokens: 100, toolNames: ["read"] }).tree;
    tree = recordMessage(tree, idOf(tree, "Endpoint"), { tokens: 100, toolNames: ["edit", "edit"] }).tree;
    tree = recordMessage(tree, idOf(tree, "Code"), { tokens: 100, toolNames: ["edit", "edit", "edit", "bash"] }).tree;
    expect(goal(tree, "Build").selfStats).toMatchObject({ messageCount: 1, preview: "glob" });
    expect(goal(tree, "Build").cumulativeStats).toMatchObject({
      messageCount: 4,
      totalTokens: 400,
      preview: "glob → read → edit × 5 → bash",
    });
    expect(goal(tree, "Code").cumulativeStats.preview).toBe("edit × 5 → bash");
    expect(goal(tree, "Code").selfStats.preview).toBe("edit × 3 → bash");
  });

  it("counts a message without tools, and keeps the cost free of float noise", () => {
    let tree = plan();
    const design = idOf(tree, "Design");
    tree = recordMessage(tree, design, { cost: 0.1 }).tree;
    tree = recordMessage(tree, design, { cost: 0.2 }).tree;
    expect(goal(tree, "Design").selfStats).toEqual({ messageCount: 2, totalTokens: 0, totalCost: 0.3 });
  });

  it("keeps only the latest segments of a long preview, marking the cut", () => {
    let tree = plan();
    const design = idOf(tree, "Design");
    const names = Array.from({ length: MAX_PREVIEW_SEGMENTS + 3 }, (_, i) => `t${i}`);
    for (const name of names) tree = recordMessage(tree, design, { toolNames: [name, name] }).tree;
    const kept = names.slice(-MAX_PREVIEW_SEGMENTS).map((n) => `${n} × 2`);
    expect(goal(tree, "Design").selfStats.preview).toBe(["…", ...kept].join(" → "));
    tree = recordMessage(tree, design, { toolNames: ["t12"] }).tree;
    expect(goal(tree, "Design").selfStats.preview?.endsWith("t12 × 3")).toBe(true);
  });

  it("ignores messages written before any goal existed", () => {
    const tree = createGoalTree("m");
    expect(recordMessage(tree, undefined, { tokens: 5 })).toEqual({ tree, affectedGoals: [] });
    expect(recordMessage(tree, null, { tokens: 5 }).tree).toBe(tree);
  });

  it("rejects an unknown goal id and impossible amounts", () => {
    expect(invalidInputMessage(() => recordMessage(plan(), "42", {}))).toMatch(/Goal id 42 is not in the goal tree/);
    expect(invalidInputMessage(() => recordMessage(plan(), "1", { tokens: -1 }))).toMatch(
      /tokens must be a non-negative integer/,
    );
    expect(invalidInputMessage(() => recordMessage(plan(), "1", { tokens: 1.5 }))).toMatch(/tokens/);
    expect(invalidInputMessage(() => recordMessage(plan(), "1", { cost: Number.NaN }))).toMatch(
      /cost must be a non-negative number/,
    );
  });

  it("never changes the tree it is given", () => {
    const tree = deepFreeze(plan());
    const copy = structuredClone(tree);
    recordMessage(tree, idOf(tree, "Endpoint"), { tokens: 10, cost: 1, toolNames: ["read"] });
    addSubTraceStats(tree, idOf(tree, "Endpoint"), { messageCount: 1, totalTokens: 1, totalCost: 1 });
    expect(tree).toEqual(copy);
  });
});

describe("addSubTraceStats", () => {
  it("adds a sub-trace's totals to the calling goal's cumulative stats and its ancestors', not to its own", () => {
    let tree = plan();
    const design = idOf(tree, "Design");
    tree = recordMessage(tree, design, { tokens: 100, cost: 0.01, toolNames: ["explore"] }).tree;
    const result = addSubTraceStats(tree, design, { messageCount: 8, totalTokens: 4000, totalCost: 0.05 });
    expect(result.affectedGoals).toEqual([design, idOf(tree, "Build")]);
    expect(goal(result.tree, "Design").selfStats).toEqual({
      messageCount: 1,
      totalTokens: 100,
      totalCost: 0.01,
      preview: "explore",
    });
    expect(goal(result.tree, "Design").cumulativeStats).toEqual({
      messageCount: 9,
      totalTokens: 4100,
      totalCost: 0.06,
      preview: "explore",
    });
    expect(goal(result.tree, "Build").cumulativeStats).toMatchObject({ messageCount: 9, totalTokens: 4100, totalCost: 0.06 });
  });

  it("rejects an unknown goal and negative totals", () => {
    expect(invalidInputMessage(() => addSubTraceStats(plan(), "99", { messageCount: 1, totalTokens: 1, totalCost: 0 }))).toMatch(
      /Goal id 99/,
    );
    expect(invalidInputMessage(() => addSubTraceStats(plan(), "1", { messageCount: -1, totalTokens: 1, totalCost: 0 }))).toMatch(
      /messageCount/,
    );
  });
});
