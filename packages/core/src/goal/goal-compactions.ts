import type { GoalCompactionData } from "../session/goal-collapse.js";
import type { GoalTree } from "./goal-tree.js";
import { descendantIds, findGoal } from "./tree-walk.js";

function quote(text: string): string {
  return JSON.stringify(text.replace(/\s+/g, " ").trim());
}

/**
 * The compactions a goal-tree change calls for: one per goal it closed, but only the outermost
 * when a goal and its parent closed together (the parent's covers the child's messages, and its
 * summary lists the child's). `added` are the goals the same call added, an abandoned goal's
 * replacements. Pure.
 */
export function goalCompactionsFor(
  before: GoalTree | undefined,
  after: GoalTree,
  added: readonly string[],
): GoalCompactionData[] {
  const closed = after.goals.filter((g) => {
    if (g.status !== "completed" && g.status !== "abandoned") return false;
    const previous = before ? findGoal(before, g.id) : undefined;
    return previous === undefined || previous.status !== g.status;
  });
  const closedIds = new Set(closed.map((g) => g.id));
  const out: GoalCompactionData[] = [];
  for (const goal of closed) {
    if (goal.parentId !== null && closedIds.has(goal.parentId)) continue;
    const below = descendantIds(after.goals, goal.id);
    const status = goal.status as "completed" | "abandoned";
    const lines =
      status === "completed"
        ? [`Goal ${quote(goal.description)} was completed; its messages are summarized here.`, `Result: ${goal.summary ?? ""}`]
        : [`Goal ${quote(goal.description)} was abandoned; its messages are summarized here.`, `Why: ${goal.summary ?? ""}`];
    for (const id of below) {
      const sub = findGoal(after, id);
      if (sub?.summary) lines.push(`- ${sub.status} ${quote(sub.description)}: ${sub.summary}`);
    }
    const data: GoalCompactionData = { goalId: goal.id, goalIds: [goal.id, ...below], status, summary: lines.join("\n") };
    if (status === "abandoned" && added.length > 0) data.replacedBy = [...added];
    out.push(data);
  }
  return out;
}
