import type { Goal, GoalStatus, GoalTree } from "./goal-tree.js";
import { goalLabel, planView } from "./numbering.js";
import { ancestorIds, childrenByParent } from "./tree-walk.js";

export const GOAL_MARKERS: Readonly<Record<GoalStatus, string>> = {
  completed: "[✓]",
  in_progress: "[→]",
  pending: "[ ]",
  abandoned: "[✗]",
};

/**
 * The "## Current Plan" block, appended to the system prompt on every model call and
 * returned by the `goal` tool. Abandoned goals are left out and the rest numbered contiguously.
 * With a goal in focus, its ancestors and the focused goal are expanded (so every number the model
 * may pass to after/under/focus near its work is on screen) and every other goal with subtasks is
 * collapsed to "(N subtasks)". With nothing in focus the open goals are expanded, completed ones
 * collapsed: their summary already says what their subtasks did.
 *
 * Lines carry no indentation (it costs tokens and models misread it); the numbers carry the depth.
 */
export function toPrompt(tree: GoalTree): string {
  const view = planView(tree);
  const current = tree.currentId === null ? undefined : tree.goals.find((g) => g.id === tree.currentId);
  const currentNumber = current && view.numberOf.get(current.id);
  const lines = [
    "## Current Plan",
    `**Mission**: ${oneLine(tree.mission) || "(none)"}`,
    `**Current**: ${current && currentNumber ? goalLabel(currentNumber, oneLine(current.description)) : "(none)"}`,
    "**Progress**:",
  ];
  const focusPath = current ? new Set([current.id, ...ancestorIds(tree.goals, current.id)]) : undefined;
  const expanded = (goal: Goal) => (focusPath ? focusPath.has(goal.id) : goal.status !== "completed");
  const visit = (parentId: string | null) => {
    for (const goal of view.children.get(parentId) ?? []) {
      const number = view.numberOf.get(goal.id)!;
      const focus = goal.id === current?.id ? " ← current" : "";
      lines.push(`${GOAL_MARKERS[goal.status]} ${goalLabel(number, oneLine(goal.description))}${focus}`);
      if (goal.status === "completed" && goal.summary) lines.push(`→ ${oneLine(goal.summary)}`);
      const subtasks = view.children.get(goal.id)?.length ?? 0;
      if (subtasks === 0) continue;
      if (expanded(goal)) visit(goal.id);
      else lines.push(`(${subtasks} subtask${subtasks === 1 ? "" : "s"})`);
    }
  };
  visit(null);
  if ((view.children.get(null)?.length ?? 0) === 0) lines.push("(no goals yet)");
  return lines.join("\n");
}

/**
 * Every goal, abandoned ones included, numbered by position with its internal id (the
 * "GoalTree 数据(含废弃)" view), for people inspecting a trace rather than for the model.
 */
export function toOutline(tree: GoalTree): string {
  const children = childrenByParent(tree.goals);
  const lines: string[] = [];
  const seen = new Set<string>();
  const visit = (parentId: string | null, prefix: string) => {
    (children.get(parentId) ?? []).forEach((goal, index) => {
      if (seen.has(goal.id)) return;
      seen.add(goal.id);
      const number = `${prefix}${index + 1}`;
      const notes = [`id: ${goal.id}`, ...(goal.status === "abandoned" ? ["abandoned"] : [])].join(", ");
      lines.push(`${GOAL_MARKERS[goal.status]} ${goalLabel(number, oneLine(goal.description))} (${notes})`);
      visit(goal.id, `${number}.`);
    });
  };
  visit(null, "");
  return lines.join("\n");
}

/** Each goal and summary must stay on its own line for the block to read as a list. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
