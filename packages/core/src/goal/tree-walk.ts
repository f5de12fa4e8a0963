import type { Goal, GoalTree } from "./goal-tree.js";

/** Children of every goal in sibling order (the order of the flat list); top-level goals under `null`. */
export function childrenByParent(goals: readonly Goal[]): Map<string | null, Goal[]> {
  const children = new Map<string | null, Goal[]>();
  for (const goal of goals) {
    const siblings = children.get(goal.parentId);
    if (siblings) siblings.push(goal);
    else children.set(goal.parentId, [goal]);
  }
  return children;
}

export function findGoal(tree: Pick<GoalTree, "goals">, id: string): Goal | undefined {
  return tree.goals.find((goal) => goal.id === id);
}

/**
 * Ids from the parent of `id` up to its top-level ancestor. The visited set keeps a cyclic tree
 * (only possible in unvalidated input) from looping forever.
 */
export function ancestorIds(goals: readonly Goal[], id: string): string[] {
  const byId = new Map(goals.map((goal) => [goal.id, goal]));
  const out: string[] = [];
  const seen = new Set([id]);
  let parentId = byId.get(id)?.parentId ?? null;
  while (parentId !== null && !seen.has(parentId)) {
    out.push(parentId);
    seen.add(parentId);
    parentId = byId.get(parentId)?.parentId ?? null;
  }
  return out;
}

/** Ids of every descendant of `id`, in list order. */
export function descendantIds(goals: readonly Goal[], id: string): string[] {
  const children = childrenByParent(goals);
  const out: string[] = [];
  const seen = new Set([id]);
  const stack = [...(children.get(id) ?? [])].reverse();
  while (stack.length > 0) {
    const goal = stack.pop()!;
    if (seen.has(goal.id)) continue;
    seen.add(goal.id);
    out.push(goal.id);
    stack.push(...[...(children.get(goal.id) ?? [])].reverse());
  }
  return out;
}
