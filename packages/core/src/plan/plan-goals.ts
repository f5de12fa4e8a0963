import { emptyGoalStats, type Goal, type GoalStatus, type GoalTree } from "../goal/goal-tree.js";
import { findGoal } from "../goal/tree-walk.js";

/**
 * The plan in the goal tree (steps are goals, so the inspector draws a plan like any other):
 * a top-level goal named after the plan with one sub-goal per step. Pure functions; each returns a
 * new tree and what changed, in the shape `RunGoals.set` publishes.
 */

export interface PlanGoalChange {
  tree: GoalTree;
  affectedGoals: string[];
  addedGoals: string[];
}

function newGoal(tree: GoalTree, parentId: string | null, description: string, status: GoalStatus, now: string): Goal {
  return {
    id: String(tree.nextId),
    parentId,
    type: "normal",
    description,
    reason: "",
    status,
    selfStats: emptyGoalStats(),
    cumulativeStats: emptyGoalStats(),
    createdAt: now,
    updatedAt: now,
  };
}

function append(tree: GoalTree, goal: Goal): GoalTree {
  return { ...tree, goals: [...tree.goals, goal], nextId: tree.nextId + 1 };
}

function patch(tree: GoalTree, id: string, change: Partial<Goal>): GoalTree {
  return { ...tree, goals: tree.goals.map((g) => (g.id === id ? { ...g, ...change } : g)) };
}

/** Adds the plan goal (in progress, in focus) and its pending step goals. */
export function addPlanGoals(
  tree: GoalTree,
  plan: { title: string; steps: readonly string[] },
  now: string,
): PlanGoalChange & { planGoalId: string; stepGoalIds: string[] } {
  const planGoal = newGoal(tree, null, plan.title, "in_progress", now);
  let next = append(tree, planGoal);
  const stepGoalIds: string[] = [];
  for (const title of plan.steps) {
    const goal = newGoal(next, planGoal.id, title, "pending", now);
    next = append(next, goal);
    stepGoalIds.push(goal.id);
  }
  next = { ...next, currentId: planGoal.id };
  return { tree: next, planGoalId: planGoal.id, stepGoalIds, affectedGoals: [], addedGoals: [planGoal.id, ...stepGoalIds] };
}

/** Focuses a step: in progress and current (its plan goal stays in progress). */
export function startStepGoal(tree: GoalTree, goalId: string, now: string): PlanGoalChange {
  const goal = findGoal(tree, goalId);
  if (goal?.status !== "pending") return { tree, affectedGoals: [], addedGoals: [] };
  return {
    tree: { ...patch(tree, goalId, { status: "in_progress", updatedAt: now }), currentId: goalId },
    affectedGoals: [goalId],
    addedGoals: [],
  };
}

/**
 * Closes a step goal: completed with its result, or abandoned (a failed, skipped or replaced step
 * leaves the plan as abandoned goals do). The focus goes back to the plan goal.
 */
export function closeStepGoal(
  tree: GoalTree,
  goalId: string,
  status: "completed" | "abandoned",
  summary: string,
  now: string,
): PlanGoalChange {
  const goal = findGoal(tree, goalId);
  if (!goal || (goal.status !== "pending" && goal.status !== "in_progress")) return { tree, affectedGoals: [], addedGoals: [] };
  const parent = goal.parentId === null ? undefined : findGoal(tree, goal.parentId);
  const next = patch(tree, goalId, { status, summary, updatedAt: now });
  const currentId = tree.currentId === goalId ? (parent?.status === "in_progress" ? parent.id : null) : tree.currentId;
  return { tree: { ...next, currentId }, affectedGoals: [goalId], addedGoals: [] };
}

/** Adds pending step goals under the plan goal (a revision's new steps). */
export function addStepGoals(
  tree: GoalTree,
  planGoalId: string,
  titles: readonly string[],
  now: string,
): PlanGoalChange & { stepGoalIds: string[] } {
  let next = tree;
  const stepGoalIds: string[] = [];
  for (const title of titles) {
    const goal = newGoal(next, planGoalId, title, "pending", now);
    next = append(next, goal);
    stepGoalIds.push(goal.id);
  }
  return { tree: next, stepGoalIds, affectedGoals: [], addedGoals: stepGoalIds };
}

/**
 * Closes the plan goal once its steps are closed: completed when any step completed, else
 * abandoned. Open steps left (an abort) are abandoned with it so the tree stays sound.
 */
export function closePlanGoal(
  tree: GoalTree,
  planGoalId: string,
  status: "completed" | "abandoned",
  summary: string,
  now: string,
): PlanGoalChange {
  const goal = findGoal(tree, planGoalId);
  if (!goal || (goal.status !== "pending" && goal.status !== "in_progress")) return { tree, affectedGoals: [], addedGoals: [] };
  const affected: string[] = [];
  let next = tree;
  for (const child of tree.goals) {
    if (child.parentId !== planGoalId || (child.status !== "pending" && child.status !== "in_progress")) continue;
    next = patch(next, child.id, { status: "abandoned", summary: "Not run: the plan ended first.", updatedAt: now });
    affected.push(child.id);
  }
  next = patch(next, planGoalId, { status, summary, updatedAt: now });
  affected.push(planGoalId);
  const focusInside = next.currentId === planGoalId || affected.includes(next.currentId ?? "");
  return { tree: focusInside ? { ...next, currentId: null } : next, affectedGoals: affected, addedGoals: [] };
}
