import { ArborError } from "../errors.js";
import type { Goal, GoalTree } from "./goal-tree.js";
import { childrenByParent } from "./tree-walk.js";

/**
 * The plan as the model sees it: abandoned goals (and everything under them) are left out and the
 * rest numbered "1", "2", "2.1", … in sibling order, so the numbers stay contiguous however many
 * goals were abandoned. Computed on demand, never stored: storing them would go stale on every change.
 */
export interface PlanView {
  /** Internal id → display number, for visible goals only. */
  numberOf: ReadonlyMap<string, string>;
  /** Display number → internal id. */
  idOf: ReadonlyMap<string, string>;
  /** Visible children of each visible goal (top level under `null`), in order. */
  children: ReadonlyMap<string | null, readonly Goal[]>;
}

export function planView(tree: Pick<GoalTree, "goals">): PlanView {
  const all = childrenByParent(tree.goals);
  const numberOf = new Map<string, string>();
  const idOf = new Map<string, string>();
  const children = new Map<string | null, Goal[]>();
  const visit = (parentId: string | null, prefix: string) => {
    const visible = (all.get(parentId) ?? []).filter((goal) => goal.status !== "abandoned");
    children.set(parentId, visible);
    visible.forEach((goal, index) => {
      // A cycle in unvalidated input would recurse forever; a numbered goal is never visited twice.
      if (numberOf.has(goal.id)) return;
      const number = `${prefix}${index + 1}`;
      numberOf.set(goal.id, number);
      idOf.set(number, goal.id);
      visit(goal.id, `${number}.`);
    });
  };
  visit(null, "");
  return { numberOf, idOf, children };
}

/** Display numbers of the visible goals, keyed by internal id. */
export function displayNumbers(tree: Pick<GoalTree, "goals">): ReadonlyMap<string, string> {
  return planView(tree).numberOf;
}

/** `1. Analyse the code` for top-level goals, `2.1 Design the API` below them: the number says the depth. */
export function goalLabel(number: string, description: string): string {
  return `${number.includes(".") ? number : `${number}.`} ${description}`;
}

/**
 * The internal id of the goal shown as `number`. A trailing dot is accepted because top-level goals
 * are shown as "2." and a model often copies that.
 */
export function resolveGoalNumber(view: PlanView, number: string, parameter: string): string {
  const normalized = number.trim().replace(/\.$/, "");
  if (!/^[1-9][0-9]*(\.[1-9][0-9]*)*$/.test(normalized)) {
    throw new ArborError(
      "invalid_input",
      `${parameter}="${number}" is not a goal number. Use a number as shown in the plan, like "2" or "2.1".`,
      { parameter, number },
    );
  }
  const id = view.idOf.get(normalized);
  if (id === undefined) {
    const known = [...view.idOf.keys()];
    throw new ArborError(
      "invalid_input",
      `There is no goal ${normalized} in the plan (${parameter}="${number}"). ` +
        (known.length > 0 ? `Its goals are ${known.join(", ")}.` : "The plan has no goals yet: add some first.") +
        " Abandoned goals are hidden and have no number; numbers refer to the plan as shown before this call.",
      { parameter, number },
    );
  }
  return id;
}
