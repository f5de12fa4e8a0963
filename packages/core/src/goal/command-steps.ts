import { type Draft, fail } from "./command-draft.js";
import type { GoalEvent } from "./command-message.js";
import { goalLabel, type PlanView } from "./numbering.js";
import { ancestorIds, descendantIds } from "./tree-walk.js";

function openDescendants(draft: Draft, id: string): string[] {
  return descendantIds(draft.goals, id).filter((d) => {
    const status = draft.get(d).status;
    return status === "pending" || status === "in_progress";
  });
}

/**
 * The focused goal is always in progress in a tree the commands built; a hand-built one may point
 * the focus at a closed goal, and closing it again would rewrite its summary.
 */
function closableCurrent(draft: Draft, verb: "done" | "abandon"): string {
  const id = draft.currentId!;
  const goal = draft.get(id);
  if (goal.status !== "in_progress") {
    fail(
      `The goal in focus (id ${id}, "${goal.description}") is ${goal.status}, so ${verb} cannot apply to it. ` +
        'Call goal(focus="N") on an open goal first.',
      { goalId: id, status: goal.status },
    );
  }
  return id;
}

export function complete(draft: Draft, summary: string, before: PlanView, events: GoalEvent[]): string {
  const id = closableCurrent(draft, "done");
  const open = openDescendants(draft, id);
  if (open.length > 0) {
    fail(
      `${labelIn(before, draft, id)} still has open subtasks: ${open.map((o) => labelIn(before, draft, o)).join(", ")}. ` +
        'Complete each (goal(focus="N") then goal(done="…")) or abandon it first; done completes only the goal in focus.',
      { open },
    );
  }
  draft.patch(id, { status: "completed", summary });
  events.push({ kind: "completed", id });
  return id;
}

export function abandon(draft: Draft, reason: string, events: GoalEvent[]): string {
  const id = closableCurrent(draft, "abandon");
  const open = openDescendants(draft, id);
  draft.patch(id, { status: "abandoned", summary: reason });
  // Open subtasks of an abandoned goal are moot; they go with it so no open goal hides under it.
  for (const child of open) draft.patch(child, { status: "abandoned", summary: `Abandoned with its parent goal: ${reason}` });
  events.push({ kind: "abandoned", id, openChildren: open.length });
  return id;
}

export function nearestInProgress(draft: Draft, id: string): string | null {
  return ancestorIds(draft.goals, id).find((a) => draft.get(a).status === "in_progress") ?? null;
}

export function addGoals(
  draft: Draft,
  items: string[],
  reasons: string[],
  place: { afterId: string | undefined; underId: string | undefined },
  before: PlanView,
  events: GoalEvent[],
): void {
  let parentId: string | null;
  let index: number;
  if (place.afterId !== undefined) {
    parentId = draft.get(place.afterId).parentId;
    checkParent(draft, parentId, before, `after="${before.numberOf.get(place.afterId)}"`);
    index = afterIndex(draft, place.afterId, parentId);
  } else {
    parentId = place.underId ?? draft.currentId;
    checkParent(draft, parentId, before, place.underId === undefined ? "the goal in focus" : "under");
    index = draft.endOfSubtree(parentId);
  }
  const created = items.map((description, i) => draft.create(parentId, description, reasons[i] ?? ""));
  draft.goals.splice(index, 0, ...created);
  events.push({ kind: "added", ids: created.map((g) => g.id) });
}

/**
 * Right after X's subtree and after any abandoned siblings that follow it, so a replacement added
 * after an abandoned goal takes the abandoned goal's place in the plan the model reads, and the list
 * stays in display order.
 */
function afterIndex(draft: Draft, afterId: string, parentId: string | null): number {
  const siblings = draft.goals.filter((g) => g.parentId === parentId);
  const next = siblings.slice(siblings.findIndex((g) => g.id === afterId) + 1).find((g) => g.status !== "abandoned");
  return next === undefined ? draft.endOfSubtree(parentId) : draft.indexOf(next.id);
}

function checkParent(draft: Draft, parentId: string | null, before: PlanView, via: string): void {
  if (parentId === null) return;
  const parent = draft.get(parentId);
  if (parent.status === "completed" || parent.status === "abandoned") {
    fail(
      `New goals would go under ${labelIn(before, draft, parentId)} (${via}), which is ${parent.status}. ` +
        "Add them at another place: after= a goal at the level you want, or under= an open goal.",
    );
  }
}

export function cascade(draft: Draft, closedId: string, events: GoalEvent[]): void {
  let childId = closedId;
  for (;;) {
    const parentId = draft.get(childId).parentId;
    if (parentId === null) return;
    const parent = draft.get(parentId);
    if (parent.status === "completed" || parent.status === "abandoned") return;
    const children = draft.goals.filter((g) => g.parentId === parentId && g.status !== "abandoned");
    if (!children.every((g) => g.status === "completed")) return;
    const summaries = children.map((g) => g.summary).filter((s): s is string => Boolean(s));
    draft.patch(parentId, { status: "completed", summary: `All subtasks done: ${summaries.join("; ")}` });
    events.push({ kind: "cascaded", id: parentId });
    childId = parentId;
  }
}

export function focus(draft: Draft, id: string, before: PlanView, events: GoalEvent[]): void {
  const goal = draft.get(id);
  if (goal.status === "completed" || goal.status === "abandoned") {
    fail(
      `${labelIn(before, draft, id)} is ${goal.status}${draft.changed(id) ? " by this call" : ""}, so it cannot take the focus. ` +
        "To do more on it, add a new goal (after= it) and focus that.",
    );
  }
  if (draft.currentId === id) {
    events.push({ kind: "already-current", id });
    return;
  }
  for (const target of [id, ...ancestorIds(draft.goals, id)]) {
    if (draft.get(target).status === "pending") draft.patch(target, { status: "in_progress" });
  }
  draft.currentId = id;
  events.push({ kind: "focus", id });
}

function labelIn(view: PlanView, draft: Draft, id: string): string {
  const number = view.numberOf.get(id);
  const description = draft.get(id).description;
  return number === undefined ? `"${description}"` : goalLabel(number, description);
}
