import { Draft, fail } from "./command-draft.js";
import { editGoal, removeGoals } from "./command-edits.js";
import { describe, type GoalEvent } from "./command-message.js";
import { abandon, addGoals, cascade, complete, focus, nearestInProgress } from "./command-steps.js";
import type { Goal, GoalTree } from "./goal-tree.js";
import { type PlanView, planView, resolveGoalNumber } from "./numbering.js";

/** The `goal` tool's arguments. Goals are named by their display numbers ("2", "2.1"). */
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
  /** Reword this pending goal (its number); the new text is `to`. */
  edit?: string | undefined;
  /** The new description for the goal `edit` names. */
  to?: string | undefined;
  /** Remove these pending goals (comma-separated numbers), with their subtasks. */
  remove?: string | undefined;
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

/** ASCII and full-width commas: users write plans in Chinese as often as in English. */
const ITEM_SEPARATOR = /[,，]/;

/**
 * Applies one `goal` call and returns the new tree; `tree` is never modified. A call may combine
 * parameters; they take effect in this order, and every goal number in the call refers to the plan
 * as the model saw it before the call (internal ids are resolved first, so nothing renumbers under it):
 *
 * 0. `edit` rewords a pending goal and `remove` takes pending goals out (see command-edits.ts).
 * 1. `done` / `abandon` close the goal in focus; the focus moves to its nearest open ancestor.
 * 2. `add` inserts goals: `after` X as X's next siblings, `under` X at the end of X's subtasks, and
 *    with neither under the goal now in focus (top level when none).
 * 3. Cascade: a parent whose visible subtasks are now all completed completes too, upwards. It runs
 *    after `add` so `done` + `add(after=sibling)` extends the parent instead of closing it.
 * 4. `focus` sets the goal (and any pending ancestors) in progress and makes it current. It may name
 *    a goal by its exact text, and a goal this call adds (by its number in the new plan) when no
 *    goal has that number before the call.
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
  // A focus on a goal this call adds (models send add + focus together) is resolved once it exists.
  const focusId =
    call.focus === undefined
      ? undefined
      : (findGoal(before, tree.goals, call.focus) ??
        (items.length > 0 ? undefined : resolveGoalNumber(before, call.focus, "focus")));

  const draft = new Draft(tree, now);
  const events: GoalEvent[] = [];
  if (call.edit !== undefined) editGoal(draft, call.edit, call.to ?? "", before, events);
  if (call.remove !== undefined) {
    removeGoals(draft, splitItems(call.remove), before, events);
    for (const [parameter, id] of [
      ["after", afterId],
      ["under", underId],
      ["focus", focusId],
    ] as const) {
      if (id !== undefined && draft.indexOf(id) < 0) {
        fail(
          `${parameter}="${call[parameter]}" names a goal this call removes; name a goal that stays, or remove it in a later call.`,
          {
            parameter,
          },
        );
      }
    }
  }
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
  if (call.focus !== undefined) focus(draft, focusId ?? focusAmongAdded(draft, call.focus), before, events);

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

/** Blank strings count as absent: models often send every parameter, the unused ones empty. */
function normalize(command: GoalCommand): GoalCommand {
  const out: GoalCommand = {};
  for (const key of ["add", "reason", "after", "under", "done", "abandon", "focus", "edit", "to", "remove"] as const) {
    const value = command[key]?.trim();
    if (value) out[key] = value;
  }
  return out;
}

/** The goal `text` names in `view`: its number, or its exact description (models write either). */
function findGoal(view: PlanView, goals: readonly Goal[], text: string): string | undefined {
  const number = text.trim().replace(/\.$/, "");
  const byNumber = view.idOf.get(number);
  if (byNumber !== undefined) return byNumber;
  const wanted = text.trim().toLowerCase();
  return goals.find((g) => view.numberOf.has(g.id) && g.description.trim().toLowerCase() === wanted)?.id;
}

/** `focus` naming a goal that only exists once this call's goals are added: its number or text in the new plan. */
function focusAmongAdded(draft: Draft, text: string): string {
  const tree = draft.finish();
  const view = planView(tree);
  const id = findGoal(view, tree.goals, text);
  if (id !== undefined) return id;
  const added = draft.addedIds().map((a) => `${view.numberOf.get(a) ?? "?"} "${draft.get(a).description}"`);
  fail(
    `focus="${text}" names no goal: not in the plan before this call, nor among the goals it adds (${added.join(", ")}). ` +
      'Give a goal number as the plan will show it, e.g. focus="1", or the exact text of a goal.',
    { parameter: "focus", number: text },
  );
}

function splitItems(text: string): string[] {
  return text
    .split(ITEM_SEPARATOR)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
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
  if ((call.edit === undefined) !== (call.to === undefined)) {
    fail(
      call.edit === undefined
        ? `to="${call.to}" is the new text of the goal edit names, and edit is missing: goal(edit="2.1", to="${call.to}").`
        : `edit="${call.edit}" needs the goal's new text in to: goal(edit="${call.edit}", to="Read the parser first").`,
    );
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
