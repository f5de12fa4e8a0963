import { describe, expect, it } from "vitest";
import { defineGoalTool, GOAL_TOOL_DESCRIPTION, type GoalToolResult, type GoalTreeAccess } from "../../src/goal/goal-tool.js";
import { createGoalTree, type GoalTree, GoalTreeSchema } from "../../src/goal/goal-tree.js";
import { toPrompt } from "../../src/goal/to-prompt.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext } from "../tools/helpers.js";
import { NOW } from "./helpers.js";

/** Trees per session in a map, recording every set call, as the loop will record them on the session path. */
function memoryAccess() {
  const trees = new Map<string, GoalTree>();
  const sets: Array<{ sessionId: string; tree: GoalTree; result: GoalToolResult }> = [];
  const access: GoalTreeAccess = {
    async get(sessionId) {
      return trees.get(sessionId) ?? createGoalTree(`mission of ${sessionId}`);
    },
    async set(sessionId, tree, result) {
      trees.set(sessionId, tree);
      sets.push({ sessionId, tree, result });
    },
  };
  return { trees, sets, access };
}

function setup() {
  const memory = memoryAccess();
  const registry = new ToolRegistry().register(defineGoalTool(memory.access, { now: () => NOW }));
  return { ...memory, registry, a: fakeContext("/tmp", { sessionId: "ses_a" }), b: fakeContext("/tmp", { sessionId: "ses_b" }) };
}

describe("the goal tool", () => {
  it("answers with what changed and the new plan, and hands the new tree (on the result too) to set", async () => {
    const { registry, sets, trees, a } = setup();
    const outcome = await registry.invoke("goal", { add: "Analyse, Build", reason: "know the code, the task" }, a);
    const tree = trees.get("ses_a")!;
    expect(outcome).toMatchObject({ isError: false, title: "Added 1. Analyse, 2. Build." });
    expect(outcome.output).toBe(`Added 1. Analyse, 2. Build.\n\n${toPrompt(tree)}`);
    expect(outcome.output).toContain(
      "**Mission**: mission of ses_a\n**Current**: (none)\n**Progress**:\n[ ] 1. Analyse\n[ ] 2. Build",
    );
    expect(sets).toHaveLength(1);
    expect(sets[0]?.result.metadata).toEqual({ goalTree: tree, affectedGoals: [], addedGoals: ["1", "2"] });
    expect(outcome.metadata).toEqual(sets[0]?.result.metadata);
    expect(GoalTreeSchema.parse(JSON.parse(JSON.stringify(outcome.metadata?.goalTree)))).toEqual(tree);
    expect(tree.goals[0]).toMatchObject({ reason: "know the code", createdAt: NOW });
  });

  it("keeps one tree per session", async () => {
    const { registry, trees, a, b } = setup();
    await registry.invoke("goal", { add: "Analyse" }, a);
    await registry.invoke("goal", { add: "Other" }, b);
    await registry.invoke("goal", { focus: "1" }, a);
    expect(trees.get("ses_a")?.goals.map((g) => [g.description, g.status])).toEqual([["Analyse", "in_progress"]]);
    expect(trees.get("ses_b")?.goals.map((g) => [g.description, g.status])).toEqual([["Other", "pending"]]);
  });

  it("accepts the raw JSON text a provider streams", async () => {
    const { registry, a } = setup();
    const outcome = await registry.invoke("goal", '{"add":"设计接口, 实现代码"}', a);
    expect(outcome.output.split("\n").slice(-2)).toEqual(["[ ] 1. 设计接口", "[ ] 2. 实现代码"]);
  });

  it("returns a bad call to the model as an invalid_input error and records nothing", async () => {
    const { registry, sets, a } = setup();
    await registry.invoke("goal", { add: "Analyse, Build" }, a);
    const outcome = await registry.invoke("goal", { add: "Docs", after: "1", under: "2" }, a);
    expect(outcome).toMatchObject({ isError: true, code: "invalid_input" });
    expect(outcome.output).toMatch(/after or under, not both/);
    expect(sets).toHaveLength(1);
  });

  it("does not record a call that changed nothing, but still shows the plan", async () => {
    const { registry, sets, a } = setup();
    await registry.invoke("goal", { add: "Analyse" }, a);
    const outcome = await registry.invoke("goal", {}, a);
    expect(outcome.output).toMatch(/^No change\. .*\n\n## Current Plan\n/);
    expect(sets).toHaveLength(1);
  });

  it("rejects parameters the tool does not have and values that are neither text, a number nor a list", async () => {
    const { registry, a } = setup();
    const unknown = await registry.invoke("goal", { add: "x", parent: "1" }, a);
    expect(unknown).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(unknown.output).toMatch(/"parent": not a parameter of this tool/);
    const flag = await registry.invoke("goal", { focus: true }, a);
    expect(flag).toMatchObject({ isError: true, code: "invalid_tool_input" });
    // A bare number is read as the goal number it spells.
    const numeric = await registry.invoke("goal", { add: "y", focus: 1 }, a);
    expect(numeric).toMatchObject({ isError: false });
  });

  it("tells the model about every parameter, with an example of each", () => {
    const { registry } = setup();
    const [info] = registry.list();
    expect(info?.name).toBe("goal");
    const schema = info?.inputSchema as {
      properties: Record<string, { type: string; description: string }>;
      required?: string[];
    };
    expect(Object.keys(schema.properties)).toEqual([
      "add",
      "reason",
      "after",
      "under",
      "done",
      "abandon",
      "focus",
      "edit",
      "to",
      "remove",
    ]);
    expect(schema.required ?? []).toEqual([]);
    for (const [name, property] of Object.entries(schema.properties)) {
      expect(property.type, name).toBe("string");
      expect(property.description.length, name).toBeGreaterThan(10);
      expect(GOAL_TOOL_DESCRIPTION, name).toMatch(new RegExp(`- ${name}: .*${name}="`));
    }
  });
});
