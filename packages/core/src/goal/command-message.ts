import type { GoalTree } from "./goal-tree.js";
import { goalLabel, type PlanView } from "./numbering.js";

/** What one `goal` call did, in order; turned into the sentences the model reads back. */
export type GoalEvent =
  | { kind: "completed" | "cascaded" | "abandoned" | "focus" | "already-current"; id: string; openChildren?: number }
  | { kind: "added"; ids: string[] }
  | { kind: "edited"; id: string; from: string }
  /** Labels as the plan showed them before the call: removed goals are no longer in the tree. */
  | { kind: "removed"; labels: string[] }
  | { kind: "current" };

export function describe(events: GoalEvent[], before: PlanView, after: PlanView, tree: GoalTree): string {
  const byId = new Map(tree.goals.map((g) => [g.id, g]));
  // Visible goals by their new number (what the model sees next); abandoned ones by the number they had.
  const label = (id: string) => {
    const number = after.numberOf.get(id) ?? before.numberOf.get(id);
    const description = byId.get(id)?.description ?? id;
    return number === undefined ? description : goalLabel(number, description);
  };
  const lines: string[] = [];
  for (const event of events) {
    switch (event.kind) {
      case "completed":
        lines.push(`Completed ${label(event.id)}.`);
        break;
      case "cascaded":
        lines.push(`Completed ${label(event.id)}: all its subtasks are done.`);
        break;
      case "abandoned":
        lines.push(
          `Abandoned ${label(event.id)}${event.openChildren ? ` and its ${event.openChildren} open subtask${event.openChildren === 1 ? "" : "s"}` : ""}; it is hidden from the plan now.`,
        );
        break;
      case "added":
        lines.push(`Added ${event.ids.map(label).join(", ")}.`);
        break;
      case "edited":
        lines.push(`Edited ${label(event.id)} (was "${event.from}").`);
        break;
      case "removed":
        lines.push(`Removed ${event.labels.join(", ")} from the plan.`);
        break;
      case "focus":
        lines.push(`Now working on ${label(event.id)}.`);
        break;
      case "already-current":
        lines.push(`${label(event.id)} is already in focus.`);
        break;
      case "current":
        lines.push(focusAfterClose(tree, after, label));
        break;
    }
  }
  return lines.length > 0
    ? lines.join("\n")
    : "No change. Pass add, done, abandon, focus, edit (with to) or remove to change the plan.";
}

function focusAfterClose(tree: GoalTree, view: PlanView, label: (id: string) => string): string {
  if (tree.currentId !== null) return `Focus is back on ${label(tree.currentId)}.`;
  const byId = new Map(tree.goals.map((g) => [g.id, g]));
  const next = [...view.idOf].find(([, id]) => byId.get(id)?.status === "pending");
  if (next === undefined) return "Nothing is in focus and no goal is pending.";
  return `Nothing is in focus; the next pending goal is ${label(next[1])}: goal(focus="${next[0]}") to start it.`;
}
