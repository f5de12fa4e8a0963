import { describe, expect, it } from "vitest";
import { isArborError } from "../../src/errors.js";
import { applyGoalCommand, type GoalCommand } from "../../src/goal/commands.js";
import { createGoalTree, type GoalTree, GoalTreeSchema } from "../../src/goal/goal-tree.js";
import { goalTreeProblems } from "../../src/goal/invariants.js";
import { planView } from "../../src/goal/numbering.js";
import { addSubTraceStats, recordMessage } from "../../src/goal/stats.js";
import { deepFreeze, NOW } from "./helpers.js";

/** A small seeded generator, so a failing sequence can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomCommand(rand: () => number, tree: GoalTree): GoalCommand {
  const chance = (p: number) => rand() < p;
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(rand() * items.length)];
  // Mostly real numbers, sometimes one that is not in the plan.
  const number = () => (chance(0.9) ? pick([...planView(tree).idOf.keys()]) : pick(["9.9", "0", "x", "1."]));
  const command: GoalCommand = {};
  if (chance(0.45)) {
    const count = 1 + Math.floor(rand() * 3);
    command.add = Array.from({ length: count }, (_, i) => `goal ${i}`).join(", ");
    if (chance(0.3)) command.reason = Array.from({ length: chance(0.8) ? count : count + 1 }, (_, i) => `r${i}`).join(", ");
    if (chance(0.35)) command.after = number();
    if (chance(0.35)) command.under = number();
  }
  if (chance(0.25)) command.done = "finished";
  else if (chance(0.15)) command.abandon = "gave up";
  if (chance(0.4)) command.focus = number();
  if (chance(0.03)) command.reason = "orphan reason";
  return command;
}

/** Every visible sibling group numbered prefix.1 … prefix.k, in order. */
function numberingProblems(tree: GoalTree): string[] {
  const view = planView(tree);
  const problems: string[] = [];
  for (const [parentId, children] of view.children) {
    const prefix = parentId === null ? "" : `${view.numberOf.get(parentId)}.`;
    children.forEach((child, index) => {
      if (view.numberOf.get(child.id) !== `${prefix}${index + 1}`)
        problems.push(`goal ${child.id} is not numbered ${prefix}${index + 1}`);
    });
  }
  const hidden = (id: string | null): boolean => {
    const goal = tree.goals.find((g) => g.id === id);
    return goal !== undefined && (goal.status === "abandoned" || hidden(goal.parentId));
  };
  const visible = tree.goals.filter((g) => !hidden(g.id)).length;
  if (view.numberOf.size !== visible) problems.push(`${view.numberOf.size} numbers for ${visible} visible goals`);
  if (tree.currentId !== null && !view.numberOf.has(tree.currentId)) problems.push("the current goal is not visible");
  return problems;
}

/** cumulative = own + children's cumulative + sub-trace totals, for counts and tokens. */
interface SubTraceExtra {
  messageCount: number;
  totalTokens: number;
}

function statsProblems(tree: GoalTree, extra: ReadonlyMap<string, SubTraceExtra>): string[] {
  const problems: string[] = [];
  for (const goal of tree.goals) {
    const children = tree.goals.filter((g) => g.parentId === goal.id);
    for (const key of ["messageCount", "totalTokens"] as const) {
      const expected =
        goal.selfStats[key] + children.reduce((sum, c) => sum + c.cumulativeStats[key], 0) + (extra.get(goal.id)?.[key] ?? 0);
      if (goal.cumulativeStats[key] !== expected)
        problems.push(`goal ${goal.id} ${key} ${goal.cumulativeStats[key]} ≠ ${expected}`);
    }
  }
  return problems;
}

const changed = (before: GoalTree, after: GoalTree) =>
  before.goals
    .filter((g) => {
      const now = after.goals.find((a) => a.id === g.id);
      return now !== undefined && (now.status !== g.status || now.summary !== g.summary);
    })
    .map((g) => g.id)
    .sort();

describe("random sequences of goal calls", () => {
  it("never produce an invalid tree, never reuse an id and never change their input", () => {
    let applied = 0;
    let rejected = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const rand = mulberry32(seed);
      let tree = deepFreeze(createGoalTree(`mission ${seed}`));
      const everSeen = new Set<string>();
      const subTraceExtra = new Map<string, SubTraceExtra>();
      for (let step = 0; step < 60; step++) {
        const where = `seed ${seed} step ${step}`;
        const ids = tree.goals.map((g) => g.id);
        const target = ids[Math.floor(rand() * ids.length)];
        if (target !== undefined && rand() < 0.2) {
          if (rand() < 0.8) {
            const toolNames = rand() < 0.5 ? ["read"] : ["glob", "read"];
            tree = deepFreeze(recordMessage(tree, target, { tokens: 10, cost: 0.001, toolNames }).tree);
          } else {
            tree = deepFreeze(addSubTraceStats(tree, target, { messageCount: 3, totalTokens: 30, totalCost: 0.01 }).tree);
            const sum = subTraceExtra.get(target) ?? { messageCount: 0, totalTokens: 0 };
            subTraceExtra.set(target, { messageCount: sum.messageCount + 3, totalTokens: sum.totalTokens + 30 });
          }
          continue;
        }
        const command = randomCommand(rand, tree);
        let result: ReturnType<typeof applyGoalCommand>;
        try {
          result = applyGoalCommand(tree, command, NOW);
        } catch (err) {
          if (!isArborError(err, "invalid_input")) throw new Error(`${where}: ${JSON.stringify(command)} threw ${String(err)}`);
          rejected++;
          continue;
        }
        applied++;
        const next = result.tree;
        expect(goalTreeProblems(next), where).toEqual([]);
        expect(numberingProblems(next), where).toEqual([]);
        expect(GoalTreeSchema.safeParse(JSON.parse(JSON.stringify(next))).success, where).toBe(true);
        // Goals are never deleted; new ones get ids above every id ever handed out.
        for (const id of ids)
          expect(
            next.goals.some((g) => g.id === id),
            where,
          ).toBe(true);
        for (const id of result.addedGoals) {
          expect(everSeen.has(id), where).toBe(false);
          expect(Number(id) >= tree.nextId, where).toBe(true);
        }
        expect(
          next.goals.map((g) => g.id).filter((id) => !ids.includes(id)),
          where,
        ).toEqual(result.addedGoals);
        expect([...result.affectedGoals].sort(), where).toEqual(changed(tree, next));
        for (const id of next.goals.map((g) => g.id)) everSeen.add(id);
        tree = deepFreeze(next);
      }
      expect(statsProblems(tree, subTraceExtra), `seed ${seed}`).toEqual([]);
    }
    // The generator must exercise both paths, or the property says little.
    expect(applied).toBeGreaterThan(3000);
    expect(rejected).toBeGreaterThan(1000);
  });
});
