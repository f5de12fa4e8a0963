import { type Draft, fail } from "./command-draft.js";
import type { GoalEvent } from "./command-message.js";
import type { Goal } from "./goal-tree.js";
import { goalLabel, type PlanView, resolveGoalNumber } from "./numbering.js";
import { descendantIds } from "./tree-walk.js";

/*
 * Changing the plan before work on a goal has begun: a pending goal may be reworded or removed, as a
 * user crossing out a line of a to-do list would. Once a goal was started, has messages of its own
 * or work going on below it, it is part of the session's history and can only be completed or
 * abandoned (which keeps it, hidden, with its reason).
 */

/** Why `goal` cannot be edited or removed; undefined when it can. */
function untouchable(goal: Goal, verb: "edit" | "remove"): string | undefined {
  if (goal.status !== "pending") {
    return `it is ${goal.status.replace("_", " ")}; only a pending goal can be ${verb === "edit" ? "edited" : "removed"}. ${
      goal.status === "in_progress" ? "Give it up with abandon instead (focus it first if it is not in focus)." : ""
    }`.trim();
  }
  if (goal.selfStats.messageCount > 0) return "work was already recorded under it.";
  return undefined;
}

/** `edit` + `to`: the pending goal gets a new description. */
export function editGoal(draft: Draft, number: string, to: string, before: PlanView, events: GoalEvent[]): void {
  const id = resolveGoalNumber(before, number, "edit");
  const goal = draft.get(id);
  const why = untouchable(goal, "edit");
  if (why !== undefined) fail(`Goal ${number} "${goal.description}" cannot be edited: ${why}`, { parameter: "edit", number });
  if (goal.description === to) return;
  draft.reword(id, to);
  events.push({ kind: "edited", id, from: goal.description });
}

/**
 * `remove`: pending goals leave the plan with their subtasks, which must all be pending and
 * untouched too. Numbers refer to the plan before the call; a goal named twice (or inside another
 * named one) is removed once.
 */
export function removeGoals(draft: Draft, numbers: readonly string[], before: PlanView, events: GoalEvent[]): void {
  const ids = new Set<string>();
  const labels: string[] = [];
  for (const number of numbers) {
    const id = resolveGoalNumber(before, number, "remove");
    if (ids.has(id)) continue;
    const subtree = [id, ...descendantIds(draft.goals, id)];
    for (const member of subtree) {
      const goal = draft.get(member);
      const why = untouchable(goal, "remove");
      if (why !== undefined) {
        const which = member === id ? `Goal ${number}` : `Goal ${number}'s subtask ${before.numberOf.get(member) ?? member}`;
        fail(`${which} "${goal.description}" cannot be removed: ${why}`, { parameter: "remove", number });
      }
    }
    for (const member of subtree) ids.add(member);
    labels.push(goalLabel(before.numberOf.get(id) ?? number, draft.get(id).description));
  }
  draft.remove(ids);
  events.push({ kind: "removed", labels });
}
