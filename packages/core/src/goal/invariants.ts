/**
 * The fields the invariants look at, so the check runs on a parsed tree or a hand-built one. The
 * status is any string here: the tree's schema calls this check, so it cannot be imported from it.
 */
interface TreeShape {
  currentId: string | null;
  nextId: number;
  goals: ReadonlyArray<{ id: string; parentId: string | null; status: string }>;
}

const OPEN: ReadonlySet<string> = new Set(["pending", "in_progress"]);

/**
 * Everything that makes a tree one no sequence of `goal` calls could produce, one sentence each
 * (empty when the tree is sound). Used by `GoalTreeSchema` at the boundary and by the property test.
 */
export function goalTreeProblems(tree: TreeShape): string[] {
  const problems: string[] = [];
  const byId = new Map<string, TreeShape["goals"][number]>();
  for (const goal of tree.goals) {
    if (byId.has(goal.id)) problems.push(`goal id ${goal.id} appears more than once`);
    byId.set(goal.id, goal);
    if (Number(goal.id) >= tree.nextId) problems.push(`goal id ${goal.id} is not below nextId ${tree.nextId}`);
  }
  for (const goal of tree.goals) {
    if (goal.parentId === null) continue;
    const parent = byId.get(goal.parentId);
    if (!parent) {
      problems.push(`goal ${goal.id} has parent ${goal.parentId}, which does not exist`);
      continue;
    }
    if (goal.status === "in_progress" && parent.status !== "in_progress") {
      problems.push(`goal ${goal.id} is in progress but its parent ${parent.id} is ${parent.status}`);
    }
    if (OPEN.has(goal.status) && !OPEN.has(parent.status)) {
      problems.push(`goal ${goal.id} is ${goal.status} under ${parent.status} goal ${parent.id}`);
    }
  }
  for (const goal of tree.goals) {
    // Stop at any repeat: a cycle that does not contain this goal is reported for the goals on it.
    const seen = new Set<string>();
    let cursor: string | null = goal.parentId;
    while (cursor !== null && byId.has(cursor) && !seen.has(cursor)) {
      if (cursor === goal.id) {
        problems.push(`goal ${goal.id} is its own ancestor`);
        break;
      }
      seen.add(cursor);
      cursor = byId.get(cursor)?.parentId ?? null;
    }
  }
  if (tree.currentId !== null) {
    const current = byId.get(tree.currentId);
    if (!current) problems.push(`currentId ${tree.currentId} is not a goal of the tree`);
    else if (current.status !== "in_progress") problems.push(`the current goal ${current.id} is ${current.status}`);
  }
  return problems;
}
