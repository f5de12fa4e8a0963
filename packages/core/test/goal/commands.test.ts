import { describe, expect, it } from "vitest";
import { applyGoalCommand } from "../../src/goal/commands.js";
import { createGoalTree, type GoalTree, GoalTreeSchema } from "../../src/goal/goal-tree.js";
import { toPrompt } from "../../src/goal/to-prompt.js";
import { deepFreeze, invalidInputMessage, NOW, planOf, play, progressLines } from "./helpers.js";

const LATER = "2026-02-04T22:05:00.000Z";

/** 1. Analyse, 2. Build (2.1 Design, 2.2 Code), 3. Test — nothing in focus. */
function basePlan(): GoalTree {
  return planOf("Ship login", { add: "Analyse, Build, Test" }, { add: "Design, Code", under: "2" });
}

const apply = (tree: GoalTree, command: Parameters<typeof applyGoalCommand>[1]) => applyGoalCommand(tree, command, LATER);
const byDescription = (tree: GoalTree, description: string) => tree.goals.find((g) => g.description === description)!;

describe("errors: each bad call is invalid_input and says how to fix it", () => {
  it("after together with under", () => {
    const message = invalidInputMessage(() => apply(basePlan(), { add: "Docs", after: "3", under: "2" }));
    expect(message).toMatch(/after or under, not both/);
  });

  it("after, under or reason without anything to add", () => {
    expect(invalidInputMessage(() => apply(basePlan(), { after: "1" }))).toMatch(/add is missing.*goal\(add=/);
    expect(invalidInputMessage(() => apply(basePlan(), { under: "2" }))).toMatch(/under only applies to goals being added/);
    expect(invalidInputMessage(() => apply(basePlan(), { reason: "because" }))).toMatch(/reason only applies/);
    expect(invalidInputMessage(() => apply(basePlan(), { add: " , ,", after: "1" }))).toMatch(/add is empty/);
  });

  it("a reason count that does not match the goals", () => {
    const message = invalidInputMessage(() => apply(basePlan(), { add: "Docs, Release", reason: "users need it" }));
    expect(message).toBe(
      "add has 2 goals but reason has 1: give one reason per goal, comma-separated in the same order (no commas inside a reason), or leave reason out.",
    );
  });

  it("done together with abandon", () => {
    const tree = play(basePlan(), { focus: "1" });
    expect(invalidInputMessage(() => apply(tree, { done: "ok", abandon: "no" }))).toMatch(/done or abandon, not both/);
  });

  it("done or abandon with nothing in focus", () => {
    expect(invalidInputMessage(() => apply(basePlan(), { done: "ok" }))).toBe(
      'done applies to the goal in focus, and no goal is in focus. Call goal(focus="N") with the goal\'s number first, then goal(done="…").',
    );
    expect(invalidInputMessage(() => apply(basePlan(), { abandon: "no" }))).toMatch(/^abandon applies to the goal in focus/);
  });

  it("a goal number that is not in the plan, or not a number", () => {
    expect(invalidInputMessage(() => apply(basePlan(), { focus: "2.3" }))).toBe(
      'There is no goal 2.3 in the plan (focus="2.3"). Its goals are 1, 2, 2.1, 2.2, 3. Abandoned goals are hidden and have no number; numbers refer to the plan as shown before this call.',
    );
    expect(invalidInputMessage(() => apply(basePlan(), { add: "X", after: "7" }))).toMatch(/no goal 7 .*after="7"/);
    expect(invalidInputMessage(() => apply(basePlan(), { add: "X", under: "0" }))).toMatch(/under="0" is not a goal number/);
    expect(invalidInputMessage(() => apply(basePlan(), { focus: "two" }))).toMatch(/like "2" or "2.1"/);
    expect(invalidInputMessage(() => apply(createGoalTree("m"), { focus: "1" }))).toMatch(/no goals yet: add some first/);
  });

  it("an abandoned goal's old number no longer names it", () => {
    const tree = play(basePlan(), { focus: "3" }, { abandon: "not needed" });
    expect(invalidInputMessage(() => apply(tree, { focus: "3" }))).toMatch(/no goal 3 .*Abandoned goals are hidden/);
  });

  it("done on a goal whose subtasks are still open", () => {
    const tree = play(basePlan(), { focus: "2" });
    expect(invalidInputMessage(() => apply(tree, { done: "all built" }))).toBe(
      '2. Build still has open subtasks: 2.1 Design, 2.2 Code. Complete each (goal(focus="N") then goal(done="…")) or abandon it first; done completes only the goal in focus.',
    );
  });

  it("focus on a completed goal, or on one this very call abandons", () => {
    const done = play(basePlan(), { focus: "1" }, { done: "read it all" });
    expect(invalidInputMessage(() => apply(done, { focus: "1" }))).toMatch(
      /^1\. Analyse is completed, so it cannot take the focus\. To do more on it, add a new goal/,
    );
    const building = play(basePlan(), { focus: "2" });
    expect(invalidInputMessage(() => apply(building, { abandon: "wrong approach", focus: "2.1" }))).toMatch(
      /^2\.1 Design is abandoned by this call/,
    );
  });

  it("new goals under a completed goal, directly or as siblings of its subtasks", () => {
    const tree = play(basePlan(), { focus: "2.1" }, { done: "designed" }, { focus: "2.2" }, { done: "coded" });
    expect(tree.goals.find((g) => g.description === "Build")?.status).toBe("completed");
    expect(invalidInputMessage(() => apply(tree, { add: "Refactor", under: "2" }))).toMatch(
      /under 2\. Build \(under\), which is completed/,
    );
    expect(invalidInputMessage(() => apply(tree, { add: "Refactor", after: "2.1" }))).toMatch(
      /under 2\. Build \(after="2.1"\), which is completed/,
    );
  });

  it("done or abandon on an abandoned or completed goal (only a hand-built tree can have one in focus)", () => {
    const tree = play(basePlan(), { focus: "3" });
    const goals = tree.goals.map((g) => (g.id === tree.currentId ? { ...g, status: "abandoned" as const } : g));
    const broken: GoalTree = { ...tree, goals };
    expect(invalidInputMessage(() => apply(broken, { done: "ok" }))).toBe(
      'The goal in focus (id 3, "Test") is abandoned, so done cannot apply to it. Call goal(focus="N") on an open goal first.',
    );
    expect(GoalTreeSchema.safeParse(broken).success).toBe(false);
  });

  it("leaves the input untouched when it fails", () => {
    const tree = deepFreeze(play(basePlan(), { focus: "2" }));
    const copy = structuredClone(tree);
    invalidInputMessage(() => apply(tree, { done: "x" }));
    expect(tree).toEqual(copy);
  });
});

describe("ids and numbering", () => {
  it("never reuses the id of an abandoned goal", () => {
    const tree = play(basePlan(), { focus: "3" }, { abandon: "covered by CI" }, { add: "Smoke test" });
    expect(tree.goals.map((g) => g.id)).toEqual(["1", "2", "4", "5", "3", "6"]);
    expect(byDescription(tree, "Smoke test")).toMatchObject({ id: "6", parentId: null, status: "pending" });
    expect(tree.nextId).toBe(7);
  });

  it("hides abandoned goals and their subtasks and keeps the numbers contiguous", () => {
    const tree = play(basePlan(), { add: "Docs" }, { focus: "2" }, { abandon: "use a library instead" });
    expect(progressLines(toPrompt(tree))).toEqual(["[ ] 1. Analyse", "[ ] 2. Test", "[ ] 3. Docs"]);
    expect(tree.goals.filter((g) => g.status === "abandoned").map((g) => g.description)).toEqual(["Build", "Design", "Code"]);
    expect(byDescription(tree, "Design").summary).toBe("Abandoned with its parent goal: use a library instead");
  });

  it("accepts a trailing dot as shown for top-level goals, full-width commas, and ignores blank parameters", () => {
    const tree = play(basePlan(), {
      add: "单元测试，集成测试",
      under: "3.",
      after: "",
      reason: " ",
      done: "",
      abandon: "  ",
      focus: "",
    });
    expect(progressLines(toPrompt(tree)).slice(-3)).toEqual(["[ ] 3. Test", "[ ] 3.1 单元测试", "[ ] 3.2 集成测试"]);
  });

  it("pairs reasons with goals in order", () => {
    const tree = play(basePlan(), { add: "Docs, Release", reason: "users need it, ship it", after: "3" });
    expect([byDescription(tree, "Docs").reason, byDescription(tree, "Release").reason]).toEqual(["users need it", "ship it"]);
    expect(byDescription(tree, "Analyse").reason).toBe("");
  });
});

describe("placement", () => {
  it("adds under the goal in focus when neither after nor under is given, at the top level otherwise", () => {
    const focused = play(basePlan(), { focus: "2.2" }, { add: "Write handler, Wire route" });
    expect(progressLines(toPrompt(focused))).toEqual([
      "[ ] 1. Analyse",
      "[→] 2. Build",
      "[ ] 2.1 Design",
      "[→] 2.2 Code ← current",
      "[ ] 2.2.1 Write handler",
      "[ ] 2.2.2 Wire route",
      "[ ] 3. Test",
    ]);
    expect(progressLines(toPrompt(play(basePlan(), { add: "Docs" })))).toContain("[ ] 4. Docs");
  });

  it("places a goal added after X right behind X's subtasks, so the list stays in display order", () => {
    const tree = play(basePlan(), { add: "Review", after: "2" });
    expect(tree.goals.map((g) => g.description)).toEqual(["Analyse", "Build", "Design", "Code", "Review", "Test"]);
    expect(progressLines(toPrompt(tree))[4]).toBe("[ ] 3. Review");
  });
});

describe("done, abandon and cascade", () => {
  it("completes the focused goal, keeps its summary and moves the focus to its parent", () => {
    const result = apply(play(basePlan(), { focus: "2.1" }), { done: "REST, see api.md" });
    expect(byDescription(result.tree, "Design")).toMatchObject({ status: "completed", summary: "REST, see api.md" });
    expect(result.tree.currentId).toBe(byDescription(result.tree, "Build").id);
    expect(result.message).toBe("Completed 2.1 Design.\nFocus is back on 2. Build.");
    expect(result.affectedGoals).toEqual([byDescription(result.tree, "Design").id]);
  });

  it("completing the last open subtask completes the parent, up through every ancestor", () => {
    const tree = play(basePlan(), { add: "Endpoint", under: "2.2" }, { focus: "2.1" }, { done: "designed" }, { focus: "2.2.1" });
    const result = apply(tree, { done: "endpoint works" });
    const code = byDescription(result.tree, "Code");
    const build = byDescription(result.tree, "Build");
    expect(code).toMatchObject({ status: "completed", summary: "All subtasks done: endpoint works" });
    expect(build).toMatchObject({
      status: "completed",
      summary: "All subtasks done: designed; All subtasks done: endpoint works",
    });
    expect(result.tree.currentId).toBeNull();
    expect(result.affectedGoals).toEqual([byDescription(result.tree, "Endpoint").id, code.id, build.id]);
    expect(result.message).toBe(
      [
        "Completed 2.2.1 Endpoint.",
        "Completed 2.2 Code: all its subtasks are done.",
        "Completed 2. Build: all its subtasks are done.",
        'Nothing is in focus; the next pending goal is 1. Analyse: goal(focus="1") to start it.',
      ].join("\n"),
    );
    // A completed goal off the focus path shows its summary, its subtasks collapsed.
    expect(progressLines(toPrompt(result.tree))).toEqual([
      "[ ] 1. Analyse",
      "[✓] 2. Build",
      "→ All subtasks done: designed; All subtasks done: endpoint works",
      "(2 subtasks)",
      "[ ] 3. Test",
    ]);
  });

  it("an abandoned sibling does not block the cascade", () => {
    const tree = play(basePlan(), { focus: "2.1" }, { abandon: "design exists" }, { focus: "2.1" }, { done: "coded" });
    expect(byDescription(tree, "Build").status).toBe("completed");
  });

  it("does not cascade when the same call adds another subtask next to the finished one", () => {
    const tree = play(basePlan(), { focus: "2.1" }, { done: "designed" }, { focus: "2.2" });
    const result = apply(tree, { done: "coded", add: "Review", after: "2.2" });
    expect(byDescription(result.tree, "Build").status).toBe("in_progress");
    expect(result.tree.currentId).toBe(byDescription(result.tree, "Build").id);
    expect(progressLines(toPrompt(result.tree)).slice(-3)).toEqual(["→ coded", "[ ] 2.3 Review", "[ ] 3. Test"]);
  });

  it("done then add without a position puts the new goals next to the finished one, under the parent", () => {
    const result = apply(play(basePlan(), { focus: "2.2" }), { done: "coded", add: "Review" });
    expect(byDescription(result.tree, "Review").parentId).toBe(byDescription(result.tree, "Build").id);
    expect(byDescription(result.tree, "Build").status).toBe("in_progress");
  });

  it("abandoning the last open subtask leaves the parent open for a replacement", () => {
    const tree = play(basePlan(), { focus: "2.1" }, { done: "designed" }, { focus: "2.2" });
    const result = apply(tree, { abandon: "wrong framework" });
    expect(byDescription(result.tree, "Build").status).toBe("in_progress");
    expect(result.tree.currentId).toBe(byDescription(result.tree, "Build").id);
    expect(result.message).toBe("Abandoned 2.2 Code; it is hidden from the plan now.\nFocus is back on 2. Build.");
  });

  it("done with focus finishes the current goal and moves on in one call", () => {
    const result = apply(play(basePlan(), { focus: "1" }), { done: "read it", focus: "2.1" });
    expect(result.message).toBe("Completed 1. Analyse.\nNow working on 2.1 Design.");
    expect(progressLines(toPrompt(result.tree)).slice(0, 4)).toEqual([
      "[✓] 1. Analyse",
      "→ read it",
      "[→] 2. Build",
      "[→] 2.1 Design ← current",
    ]);
  });
});

describe("focus", () => {
  it("sets the goal and its pending ancestors in progress, and reports them as affected", () => {
    const result = apply(basePlan(), { focus: "2.2" });
    const ids = ["Code", "Build"].map((d) => byDescription(result.tree, d).id);
    expect(result.affectedGoals).toEqual(ids);
    expect(result.addedGoals).toEqual([]);
    expect(result.tree.goals.filter((g) => g.status === "in_progress").map((g) => g.description)).toEqual(["Build", "Code"]);
    expect(toPrompt(result.tree).split("\n")[2]).toBe("**Current**: 2.2 Code");
  });

  it("switching away leaves the previous goal in progress; only one goal is current", () => {
    const tree = play(basePlan(), { focus: "2.1" }, { focus: "3" });
    expect(progressLines(toPrompt(tree))).toEqual(["[ ] 1. Analyse", "[→] 2. Build", "(2 subtasks)", "[→] 3. Test ← current"]);
  });

  it("focusing the current goal changes nothing and returns the same tree", () => {
    const tree = play(basePlan(), { focus: "1" });
    const result = apply(tree, { focus: "1" });
    expect(result.tree).toBe(tree);
    expect(result.message).toBe("1. Analyse is already in focus.");
  });

  it("an empty call returns the same tree and says how to change it", () => {
    const tree = basePlan();
    const result = apply(tree, {});
    expect(result).toEqual({
      tree,
      message: "No change. Pass add, done, abandon, focus, edit (with to) or remove to change the plan.",
      affectedGoals: [],
      addedGoals: [],
    });
    expect(result.tree).toBe(tree);
  });
});

describe("timestamps, immutability and the schema", () => {
  it("stamps new goals with the time passed in and changed ones with the later time", () => {
    const result = apply(play(basePlan(), { focus: "1" }), { done: "ok", add: "Docs" });
    expect(byDescription(result.tree, "Docs")).toMatchObject({ createdAt: LATER, updatedAt: LATER });
    expect(byDescription(result.tree, "Analyse")).toMatchObject({ createdAt: NOW, updatedAt: LATER });
    expect(byDescription(result.tree, "Test")).toMatchObject({ createdAt: NOW, updatedAt: NOW });
    expect(result.addedGoals).toEqual([byDescription(result.tree, "Docs").id]);
  });

  it("never changes the tree it is given", () => {
    let tree = deepFreeze(createGoalTree("Ship login"));
    const calls = [
      { add: "Analyse, Build, Test" },
      { add: "Design, Code", under: "2" },
      { focus: "2.1" },
      { done: "designed", add: "Review", after: "2.2" },
      { focus: "2.2" },
      { abandon: "too slow", add: "Code faster", after: "2.2" },
      { focus: "2.2" },
      { done: "fast" },
    ];
    for (const call of calls) {
      const copy = structuredClone(tree);
      const next = applyGoalCommand(tree, call, LATER).tree;
      expect(tree).toEqual(copy);
      tree = deepFreeze(next);
    }
    expect(GoalTreeSchema.parse(JSON.parse(JSON.stringify(tree)))).toEqual(tree);
  });

  it("rejects trees no sequence of calls could produce", () => {
    const good = play(basePlan(), { focus: "2.1" });
    const problems = (tree: unknown) => {
      const parsed = GoalTreeSchema.safeParse(tree);
      return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
    };
    expect(problems(good)).toEqual([]);
    const design = good.goals.find((g) => g.description === "Design")!;
    const edit = (change: (g: GoalTree["goals"][number]) => object) => ({
      ...good,
      goals: good.goals.map((g) => (g.id === design.id ? { ...g, ...change(g) } : g)),
    });
    expect(problems(edit(() => ({ parentId: "99" })))).toEqual([`goal ${design.id} has parent 99, which does not exist`]);
    expect(problems(edit(() => ({ id: "1" })))).toContain("goal id 1 appears more than once");
    expect(problems({ ...good, nextId: 3 })).toContain("goal id 4 is not below nextId 3");
    expect(problems({ ...good, currentId: "3" })).toContain("the current goal 3 is pending");
    const cyclic = { ...good, goals: good.goals.map((g) => (g.id === "2" ? { ...g, parentId: design.id } : g)) };
    expect(problems(cyclic)).toContain("goal 2 is its own ancestor");
    expect(problems(edit(() => ({ status: "pending" })))).toContain("the current goal 4 is pending");
  });

  it("fills defaults for fields an older writer left out, and keeps fields it does not know", () => {
    const tree = play(basePlan(), { focus: "1" });
    const json = JSON.parse(JSON.stringify(tree));
    delete json.goals[0].type;
    delete json.goals[0].reason;
    json.goals[0].futureField = 42;
    const parsed = GoalTreeSchema.parse(json);
    expect(parsed.goals[0]).toMatchObject({ type: "normal", reason: "", futureField: 42 });
  });
});
