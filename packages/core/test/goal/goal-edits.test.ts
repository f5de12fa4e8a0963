import { describe, expect, it } from "vitest";
import { applyGoalCommand } from "../../src/goal/commands.js";
import { type GoalTree, GoalTreeSchema } from "../../src/goal/goal-tree.js";
import { toPrompt } from "../../src/goal/to-prompt.js";
import { deepFreeze, invalidInputMessage, planOf, play } from "./helpers.js";

const LATER = "2026-02-04T22:05:00.000Z";

/** 1. Analyse, 2. Build (2.1 Design, 2.2 Code), 3. Test — nothing in focus. */
function basePlan(): GoalTree {
  return planOf("Ship login", { add: "Analyse, Build, Test" }, { add: "Design, Code", under: "2" });
}

const apply = (tree: GoalTree, command: Parameters<typeof applyGoalCommand>[1]) => applyGoalCommand(tree, command, LATER);
const descriptions = (tree: GoalTree) => tree.goals.map((g) => g.description);

describe("editing and removing pending goals", () => {
  it("edit + to rewords a pending goal, keeping its id, and says what it was", () => {
    const before = deepFreeze(basePlan());
    const change = apply(before, { edit: "2.1", to: "Design the API" });
    const goal = change.tree.goals.find((g) => g.id === before.goals.find((b) => b.description === "Design")?.id);
    expect(goal).toMatchObject({ description: "Design the API", status: "pending", updatedAt: LATER });
    expect(change.affectedGoals).toEqual([goal?.id]);
    expect(change.message).toBe('Edited 2.1 Design the API (was "Design").');
    expect(GoalTreeSchema.parse(change.tree)).toEqual(change.tree);
    expect(toPrompt(change.tree)).toContain("Design the API");
  });

  it("remove takes pending goals out with their subtasks; the rest are renumbered", () => {
    const change = apply(deepFreeze(basePlan()), { remove: "2, 1" });
    expect(descriptions(change.tree)).toEqual(["Test"]);
    expect(change.message).toBe("Removed 2. Build, 1. Analyse from the plan.");
    expect(change.affectedGoals.sort()).toEqual(["1", "2", "4", "5"]);
    expect(GoalTreeSchema.parse(change.tree)).toEqual(change.tree);
    // Ids are never reused: the next goal added gets a fresh one.
    const added = apply(change.tree, { add: "Release" });
    expect(added.addedGoals).toEqual(["6"]);
  });

  it("a goal that was started or has work under it cannot be edited or removed; the call changes nothing", () => {
    const started = play(basePlan(), { focus: "2.2" });
    expect(invalidInputMessage(() => apply(started, { edit: "2.2", to: "Write it" }))).toMatch(
      /Goal 2.2 "Code" cannot be edited: it is in progress; only a pending goal can be edited\. Give it up with abandon instead/,
    );
    expect(invalidInputMessage(() => apply(started, { remove: "2" }))).toMatch(
      /Goal 2 "Build" cannot be removed: it is in progress/,
    );
    const worked = structuredClone(basePlan());
    const analyse = worked.goals.find((g) => g.description === "Analyse")!;
    analyse.selfStats = { messageCount: 2, totalTokens: 10, totalCost: 0 };
    expect(invalidInputMessage(() => apply(worked, { remove: "1" }))).toMatch(
      /cannot be removed: work was already recorded under it/,
    );
    const done = play(play(basePlan(), { focus: "1" }), { done: "analysed" });
    expect(invalidInputMessage(() => apply(done, { edit: "1", to: "x" }))).toMatch(/it is completed/);
  });

  it("edit without to, to without edit, and unknown numbers say how to write the call", () => {
    expect(invalidInputMessage(() => apply(basePlan(), { edit: "1" }))).toMatch(/edit="1" needs the goal's new text in to/);
    expect(invalidInputMessage(() => apply(basePlan(), { to: "x" }))).toMatch(/edit is missing: goal\(edit="2.1", to="x"\)/);
    expect(invalidInputMessage(() => apply(basePlan(), { remove: "9" }))).toMatch(
      /There is no goal 9 in the plan \(remove="9"\)/,
    );
  });

  it("a call that removes the goal it also adds after, under or focuses is refused whole", () => {
    expect(invalidInputMessage(() => apply(basePlan(), { remove: "3", add: "Docs", after: "3" }))).toMatch(
      /after="3" names a goal this call removes/,
    );
    expect(invalidInputMessage(() => apply(basePlan(), { remove: "2", focus: "2.1" }))).toMatch(
      /focus="2.1" names a goal this call removes/,
    );
  });

  it("edits and removals apply before add and focus, with numbers as the plan showed them", () => {
    const change = apply(basePlan(), { remove: "1", add: "Review", after: "3", focus: "3" });
    // Goal 3 ("Test") is named by its number before the removal; "Review" follows it.
    expect(change.tree.goals.filter((g) => g.parentId === null).map((g) => g.description)).toEqual(["Build", "Test", "Review"]);
    const current = change.tree.goals.find((g) => g.id === change.tree.currentId);
    expect(current?.description).toBe("Test");
  });
});
