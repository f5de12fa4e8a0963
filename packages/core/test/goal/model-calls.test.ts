import { describe, expect, it } from "vitest";
import { applyGoalCommand } from "../../src/goal/commands.js";
import { defineGoalTool, type GoalTreeAccess } from "../../src/goal/goal-tool.js";
import { createGoalTree, type GoalTree } from "../../src/goal/goal-tree.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext } from "../tools/helpers.js";
import { invalidInputMessage, NOW, planOf } from "./helpers.js";

/** The goals as [number-free description, status], and the description of the goal in focus. */
function summary(tree: GoalTree) {
  const current = tree.goals.find((g) => g.id === tree.currentId)?.description ?? null;
  return { goals: tree.goals.map((g) => [g.description, g.status]), current };
}

function setup() {
  const trees = new Map<string, GoalTree>();
  let sets = 0;
  const access: GoalTreeAccess = {
    async get(sessionId) {
      return trees.get(sessionId) ?? createGoalTree("the mission");
    },
    async set(sessionId, tree) {
      sets++;
      trees.set(sessionId, tree);
    },
  };
  const registry = new ToolRegistry().register(defineGoalTool(access, { now: () => NOW }));
  return { registry, trees, sets: () => sets, ctx: fakeContext("/tmp", { sessionId: "ses_a" }) };
}

describe("goal calls as models send them", () => {
  it("add then focus in one call, on an empty plan: the new goals are kept and the first is in focus", () => {
    const { tree, message } = applyGoalCommand(createGoalTree("m"), { add: "Read the code, Fix the bug", focus: "1" }, NOW);
    expect(summary(tree)).toEqual({
      goals: [
        ["Read the code", "in_progress"],
        ["Fix the bug", "pending"],
      ],
      current: "Read the code",
    });
    expect(message).toContain("Added 1. Read the code, 2. Fix the bug.");
  });

  it("focus on a goal this call adds under the goal in focus, by its new number", () => {
    const plan = planOf("m", { add: "Build" }, { focus: "1" });
    const { tree } = applyGoalCommand(plan, { add: "Design, Code", focus: "1.2" }, NOW);
    expect(summary(tree).current).toBe("Code");
  });

  it("focus by a goal's exact text, new or existing", () => {
    const added = applyGoalCommand(createGoalTree("m"), { add: "Read the code, Fix the bug", focus: "fix the bug" }, NOW);
    expect(summary(added.tree).current).toBe("Fix the bug");
    const moved = applyGoalCommand(added.tree, { focus: "Read the code" }, NOW);
    expect(summary(moved.tree).current).toBe("Read the code");
  });

  it("a number that exists before the call still means the plan as shown before it", () => {
    const plan = planOf("m", { add: "Analyse, Build" });
    const { tree } = applyGoalCommand(plan, { add: "Test", after: "1", focus: "2" }, NOW);
    // "2" was Build before the call; the new goal took number 2 only afterwards.
    expect(summary(tree).current).toBe("Build");
  });

  it("a focus naming no goal, before or after the add, says which goals it adds and changes nothing", () => {
    const plan = createGoalTree("m");
    const message = invalidInputMessage(() => applyGoalCommand(plan, { add: "Read, Fix", focus: "5" }, NOW));
    expect(message).toBe(
      'focus="5" names no goal: not in the plan before this call, nor among the goals it adds (1 "Read", 2 "Fix"). ' +
        'Give a goal number as the plan will show it, e.g. focus="1", or the exact text of a goal.',
    );
    expect(plan.goals).toEqual([]);
  });

  it("takes lists and bare numbers through the tool, as models send them", async () => {
    const { registry, trees, ctx } = setup();
    const outcome = await registry.invoke("goal", { add: ["Read the code", "Fix the bug"], focus: 1 }, ctx);
    expect(outcome.isError).toBe(false);
    expect(summary(trees.get("ses_a")!)).toMatchObject({ current: "Read the code" });
    const under = await registry.invoke("goal", { add: ["Find the cause"], under: 2 }, ctx);
    expect(under.isError).toBe(false);
    expect(trees.get("ses_a")!.goals.map((g) => g.description)).toContain("Find the cause");
  });

  it("a wrongly shaped argument names the field and the shape expected, and records nothing", async () => {
    const { registry, sets, ctx } = setup();
    const outcome = await registry.invoke("goal", { add: { first: "Read" }, focuss: "1" }, ctx);
    expect(outcome).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(outcome.output).toContain('- add: expected text (a string), e.g. "2.1" or "Read the code, Fix the bug"');
    expect(outcome.output).toContain('- "focuss": not a parameter of this tool');
    expect(outcome.output).toContain(
      "Expected an object with add (string, optional), reason (string, optional), after (string, optional), under (string, optional), done (string, optional), abandon (string, optional), focus (string, optional), edit (string, optional), to (string, optional), remove (string, optional).",
    );
    expect(sets()).toBe(0);
  });
});
