import { describe, expect, it } from "vitest";
import { isArborError } from "../../src/errors.js";
import { createGoalTree } from "../../src/goal/goal-tree.js";
import { goalTreeProblems } from "../../src/goal/invariants.js";
import { executorPrompt } from "../../src/plan/executor-prompt.js";
import { normalizeSteps } from "../../src/plan/normalize-steps.js";
import { planReport } from "../../src/plan/phase-two.js";
import { addPlanGoals, addStepGoals, closePlanGoal, closeStepGoal, startStepGoal } from "../../src/plan/plan-goals.js";
import { PlanCreateInputSchema } from "../../src/plan/plan-tools.js";
import { shouldSkipReplan } from "../../src/plan/replanner.js";

const NOW = "2026-01-01T00:00:00.000Z";

describe("plan steps", () => {
  it("normalises mixed string and object steps", () => {
    const input = PlanCreateInputSchema.parse({
      title: "T",
      steps: [
        "  Read   the code ",
        { title: "Fix", description: "the parser" },
        { description: "Run tests" },
        { step: "Ship", extra: 1 },
      ],
    });
    expect(normalizeSteps(input.steps)).toEqual(["Read the code", "Fix: the parser", "Run tests", "Ship"]);
  });

  it("refuses empty plans and empty steps, naming the step", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return isArborError(err) ? `${err.code}: ${err.message}` : String(err);
      }
      return "no error";
    };
    expect(code(() => normalizeSteps([]))).toMatch(/^invalid_input: A plan needs at least one step/);
    expect(code(() => normalizeSteps(["ok", { title: " " }]))).toMatch(/^invalid_input: Step 2 is empty/);
  });
});

describe("the plan in the goal tree", () => {
  it("keeps the tree sound through start, close, revise and the plan's end", () => {
    let tree = createGoalTree("mission");
    const added = addPlanGoals(tree, { title: "Plan", steps: ["a", "b", "c"] }, NOW);
    tree = added.tree;
    expect(tree.currentId).toBe(added.planGoalId);
    expect(added.addedGoals).toEqual(["1", "2", "3", "4"]);
    tree = startStepGoal(tree, "2", NOW).tree;
    expect(tree.currentId).toBe("2");
    tree = closeStepGoal(tree, "2", "completed", "did a", NOW).tree;
    expect(tree.currentId).toBe("1");
    tree = closeStepGoal(tree, "3", "abandoned", "replaced", NOW).tree;
    tree = addStepGoals(tree, "1", ["d"], NOW).tree;
    expect(goalTreeProblems(tree)).toEqual([]);
    const closed = closePlanGoal(tree, "1", "completed", "done", NOW);
    expect(closed.affectedGoals.sort()).toEqual(["1", "4", "5"]);
    expect(closed.tree.currentId).toBeNull();
    expect(goalTreeProblems(closed.tree)).toEqual([]);
    expect(closed.tree.goals.map((g) => g.status)).toEqual(["completed", "completed", "abandoned", "abandoned", "abandoned"]);
  });
});

describe("replanner heuristics and prompts", () => {
  it("skips when at most one step remains or the last step succeeded without [ERROR]", () => {
    const ok = { title: "a", status: "completed" as const, result: "fine" };
    const error = { title: "a", status: "completed" as const, result: "[ERROR] broke" };
    const failed = { title: "a", status: "failed" as const, result: "[failed] broke" };
    expect(shouldSkipReplan(ok, 3)).toBe(true);
    expect(shouldSkipReplan(error, 1)).toBe(true);
    expect(shouldSkipReplan(failed, 0)).toBe(true);
    expect(shouldSkipReplan(error, 2)).toBe(false);
    expect(shouldSkipReplan(failed, 2)).toBe(false);
  });

  it("the executor prompt holds the title, the step and earlier results cut to 1,000 characters", () => {
    const prompt = executorPrompt({
      title: "Ship",
      step: { id: 2, title: "Fix" },
      position: 2,
      total: 3,
      past: [{ title: "Read", status: "completed", result: "r".repeat(1200) }],
    });
    expect(prompt).toBe(
      [
        "Plan: Ship",
        "Step 2 of 3: Fix",
        "",
        "Results of the earlier steps:",
        "1. Read [completed]",
        `${"r".repeat(1000)}...`,
        "",
        "Now carry out step 2: Fix",
      ].join("\n"),
    );
  });

  it("the closing report counts steps by status", () => {
    const report = planReport({
      planId: "s:00000000",
      title: "P",
      nextStepId: 4,
      steps: [
        { id: 1, title: "a", status: "completed", result: "ok" },
        { id: 2, title: "b", status: "failed", result: "[failed] no" },
        { id: 3, title: "c", status: "skipped" },
      ],
    });
    expect(report.split("\n")[0]).toBe('Plan "P" finished: 1 of 3 steps completed, 1 failed, 1 not run.');
  });
});
