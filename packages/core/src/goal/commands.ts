import { ArborError } from "../errors.js";
import { emptyGoalStats, type Goal, type GoalTree } from "./goal-tree.js";
import { goalLabel, type PlanView, planView, resolveGoalNumber } from "./numbering.js";
import { ancestorIds, descendantIds } from "./tree-walk.js";

/** The `goal` tool's arguments (seed 000). Goals are named by their display numbers ("2", "2.1"). */
export interface GoalCommand {
  /** New goals, comma-separated. */
  add?: string | undefined;
  /** One reason per added goal, comma-separated in the same order. */
  reason?: string | undefined;
  /** Insert the new goals right after this goal, as its siblings. */
  after?: string | undefined;
  /** Append the new goals to this goal's subtasks. */
  under?: string | undefined;
  /** Complete the goal in focus; the text is its summary. */
  done?: string | undefined;
  /** Abandon the goal in focus; the text is the reason. */
  abandon?: string | undefined;
  /** Move the focus to this goal. */
  focus?: string | undefined;
}

export interface GoalCommandResult {
  tree: GoalTree;
  /** What changed, in sentences the model reads back as the tool result. */
  message: string;
  /** Ids of goals that existed before the call and whose status or summary changed (cascades included). */
  affectedGoals: string[];
  /** Ids of the goals this call added, in order. */
  addedGoals: string[];
}

/** ASCII and full-width commas: seed 000's users write plans in Chinese as often as in English. */
const ITEM_SEPARATOR = /[,，]/;

/**
 * Applies one `goal` call and returns the new tree; `tree` is never modified. A call may combine
 * parameters; they take effect in this order, and every goal number in the call refers to the plan
 * as the model saw it before the call (internal ids are resolved first, so nothing renumbers under it):
 *
 * 1. `done` / `abandon` close the goal in focus; the focus moves to its nearest open ancestor.
 * 2. `add` inserts goals: `after` X as X's next siblings, `under` X at the end of X's subtasks, and
 *    with neither under the goal now in focus (top level when none).
 * 3. Cascade: a parent whose visible subtasks are now all completed completes too, upwards. It runs
 *    after `add` so `done` + `add(after=sibling)` extends the parent instead of closing it.
 * 4. `focus` sets the goal (and any pending ancestors) in progress and makes it current.
 *
 * Bad calls throw `ArborError("invalid_input")` with a message saying how to fix the call.
 */
export function applyGoalCommand(tree: GoalTree, command: GoalCommand, now: string): GoalCommandResult {
  const call = normalize(command);
  const before = planView(tree);
  const items = call.add === undefined ? [] : splitItems(call.add);
  checkCombination(call, items, tree);
  const afterId = call.after === undefined ? undefined : resolveGoalNumber(before, call.after, "after");
  const underId = call.under === undefined ? undefined : resolveGoalNumber(before, call.under, "under");
  const focusId = call.focus === undefined ? undefined : resolveGoalNumber(before, call.focus, "focus");

  const draft = new Draft(tree, now);
  const events: Event[] = [];
  let closedId: string | undefined;
  if (call.done !== undefined) closedId = complete(draft, call.done, before, events);
  if (call.abandon !== undefined) closedId = abandon(draft, call.abandon, events);
  if (closedId !== undefined) draft.currentId = nearestInProgress(draft, closedId);
  if (items.length > 0) {
    const reasons = call.reason === undefined ? [] : splitItems(call.reason);
    addGoals(draft, items, reasons, { afterId, underId }, before, events);
  }
  if (call.done !== undefined && closedId !== undefined) {
    cascade(draft, closedId, events);
    draft.currentId = nearestInProgress(draft, closedId);
  }
  if (closedId !== undefined && focusId === undefined) events.push({ kind: "current" });
  if (focusId !== undefined) focus(draft, focusId, before, events);

  const result = draft.finish();
  const addedGoals = draft.addedIds();
  const affectedGoals = draft.affectedIds();
  // Returning the input itself tells callers (the tool, the loop) that nothing needs recording.
  if (addedGoals.length === 0 && affectedGoals.length === 0 && result.currentId === tree.currentId) {
    return { tree, message: describe(events, before, before, tree), affectedGoals, addedGoals };
  }
  return {
    tree: result,
    message: describe(events, before, planView(result), result),
    affectedGoals,
    addedGoals,
  };
}

type Event =
  | { kind: "completed" | "cascaded" | "abandoned" | "focus" | "already-current"; id: string; openChildren?: number }
  | { kind: "added"; ids: string[] }
  | { kind: "current" };

/** Blank strings count as absent: models often send every parameter, the unused ones empty. */
function normalize(command: GoalCommand): GoalCommand {
  const out: GoalCommand = {};
  for (const key of ["add", "reason", "after", "under", "done", "abandon", "focus"] as const) {
    const value = command[key]?.trim();
    if (value) out[key] = value;
  }
  return out;
}

function splitItems(text: string): string[] {
  return text
    .split(ITEM_SEPARATOR)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function fail(message: string, details?: Record<string, unknown>): never {
  throw new ArborError("invalid_input", message, details);
}

function checkCombination(call: GoalCommand, items: string[], tree: GoalTree): void {
  if (call.after !== undefined && call.under !== undefined) {
    fail(
      `Use after or under, not both: after="${call.after}" puts the new goals right after goal ${call.after} at its level, ` +
        `under="${call.under}" puts them at the end of goal ${call.under}'s subtasks.`,
    );
  }
  for (const key of ["after", "under", "reason"] as const) {
    if (call[key] !== undefined && items.length === 0) {
      fail(
        `${key} only applies to goals being added, and add is ${call.add === undefined ? "missing" : "empty"}. ` +
          `Pass the new goals in add, comma-separated: goal(add="Write the parser, Test it", ${key}="${call[key]}").`,
      );
    }
  }
  if (call.reason !== undefined) {
    const reasons = splitItems(call.reason);
    if (reasons.length !== items.length) {
      fail(
        `add has ${items.length} goal${items.length === 1 ? "" : "s"} but reason has ${reasons.length}: give one reason per goal, ` +
          "comma-separated in the same order (no commas inside a reason), or leave reason out.",
        { goals: items.length, reasons: reasons.length },
      );
    }
  }
  if (call.done !== undefined && call.abandon !== undefined) {
    fail("Use done or abandon, not both: done completes the goal in focus with a summary, abandon gives it up with a reason.");
  }
  const closing = call.done !== undefined ? "done" : call.abandon !== undefined ? "abandon" : undefined;
  if (closing !== undefined && tree.currentId === null) {
    fail(
      `${closing} applies to the goal in focus, and no goal is in focus. ` +
        `Call goal(focus="N") with the goal's number first, then goal(${closing}="…").`,
    );
  }
}

/** Copy-on-write working state: goals are replaced, never edited, so the input tree stays intact. */
class Draft {
  goals: Goal[];
  currentId: string | null;
  private nextId: number;
  private readonly affected = new Set<string>();
  private readonly added: string[] = [];

  constructor(
    private readonly tree: GoalTree,
    private readonly now: string,
  ) {
    this.goals = [...tree.goals];
    this.currentId = tree.currentId;
    this.nextId = tree.nextId;
  }

  get(id: string): Goal {
    const goal = this.goals.find((g) => g.id === id);
    if (!goal) fail(`Goal id ${id} is not in the goal tree.`);
    return goal;
  }

  indexOf(id: string): number {
    return this.goals.findIndex((g) => g.id === id);
  }

  patch(id: string, fields: Pick<Partial<Goal>, "status" | "summary">): void {
    const index = this.indexOf(id);
    this.goals[index] = { ...this.get(id), ...fields, updatedAt: this.now };
    if (!this.added.includes(id)) this.affected.add(id);
  }

  create(parentId: string | null, description: string, reason: string): Goal {
    const id = String(this.nextId++);
    this.added.push(id);
    return {
      id,
      parentId,
      type: "normal",
      description,
      reason,
      status: "pending",
      selfStats: emptyGoalStats(),
      cumulativeStats: emptyGoalStats(),
      createdAt: this.now,
      updatedAt: this.now,
    };
  }

  /** Index just past the last goal of `id`'s subtree (the end of the list for the top level). */
  endOfSubtree(id: string | null): number {
    if (id === null) return this.goals.length;
    const members = new Set([id, ...descendantIds(this.goals, id)]);
    let end = this.indexOf(id) + 1;
    this.goals.forEach((goal, index) => {
      if (members.has(goal.id)) end = Math.max(end, index + 1);
    });
    return end;
  }

  /** Whether this call already changed the goal (so an error can say "by this call"). */
  changed(id: string): boolean {
    return this.affected.has(id);
  }

  affectedIds(): string[] {
    return [...this.affected];
  }

  addedIds(): string[] {
    return [...this.added];
  }

  finish(): GoalTree {
    return { ...this.tree, currentId: this.currentId, goals: this.goals, nextId: this.nextId };
  }
}

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

function complete(draft: Draft, summary: string, before: PlanView, events: Event[]): string {
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

function abandon(draft: Draft, reason: string, events: Event[]): string {
  const id = closableCurrent(draft, "abandon");
  const open = openDescendants(draft, id);
  draft.patch(id, { status: "abandoned", summary: reason });
  // Open subtasks of an abandoned goal are moot; they go with it so no open goal hides under it.
  for (const child of open) draft.patch(child, { status: "abandoned", summary: `Abandoned with its parent goal: ${reason}` });
  events.push({ kind: "abandoned", id, openChildren: open.length });
  return id;
}

function nearestInProgress(draft: Draft, id: string): string | null {
  return ancestorIds(draft.goals, id).find((a) => draft.get(a).status === "in_progress") ?? null;
}

function addGoals(
  draft: Draft,
  items: string[],
  reasons: string[],
  place: { afterId: string | undefined; underId: string | undefined },
  before: PlanView,
  events: Event[],
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
 * after an abandoned goal sits where the seed's "after backtracking" tree shows it, and the list
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

function cascade(draft: Draft, closedId: string, events: Event[]): void {
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

function focus(draft: Draft, id: string, before: PlanView, events: Event[]): void {
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

function describe(events: Event[], before: PlanView, after: PlanView, tree: GoalTree): string {
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
  return lines.length > 0 ? lines.join("\n") : "No change. Pass add, done, abandon or focus to change the plan.";
}

function focusAfterClose(tree: GoalTree, view: PlanView, label: (id: string) => string): string {
  if (tree.currentId !== null) return `Focus is back on ${label(tree.currentId)}.`;
  const byId = new Map(tree.goals.map((g) => [g.id, g]));
  const next = [...view.idOf].find(([, id]) => byId.get(id)?.status === "pending");
  if (next === undefined) return "Nothing is in focus and no goal is pending.";
  return `Nothing is in focus; the next pending goal is ${label(next[1])}: goal(focus="${next[0]}") to start it.`;
}
