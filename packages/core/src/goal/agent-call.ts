import { ArborError } from "../errors.js";
import { emptyGoalStats, type Goal, type GoalTree, type SubTraceMetadata } from "./goal-tree.js";
import { addSubTraceStats } from "./stats.js";
import { findGoal } from "./tree-walk.js";

/** How a goal started its sub-traces: in parallel (`explore`) or one at a time (`delegate`). */
export type AgentCallMode = "explore" | "delegate" | "plan_step";

export interface AgentCallStart {
  tree: GoalTree;
  /** The goal that records the call: the goal in focus, or a new top-level one when none is. */
  goalId: string;
  /** True when the goal was made for this call (nothing was in focus), so the call also closes it. */
  created: boolean;
}

/**
 * Marks the goal that starts sub-traces as an `agent_call` and lists their ids on it, so the plan shows where the work went.
 * The goal in focus is the calling goal; with nothing in focus, a top-level goal named after the
 * call is added (not focused, so the model's plan is left as it was). Pure.
 */
export function startAgentCall(
  tree: GoalTree,
  call: { mode: AgentCallMode; description: string; subTraceIds: readonly string[]; now: string },
): AgentCallStart {
  const current = tree.currentId === null ? undefined : findGoal(tree, tree.currentId);
  if (current) {
    const goal: Goal = {
      ...current,
      type: "agent_call",
      agentCallMode: call.mode,
      subTraceIds: [...(current.subTraceIds ?? []), ...call.subTraceIds],
      updatedAt: call.now,
    };
    return { tree: replaceGoal(tree, goal), goalId: goal.id, created: false };
  }
  const id = String(tree.nextId);
  const goal: Goal = {
    id,
    parentId: null,
    type: "agent_call",
    description: call.description,
    reason: "",
    status: "in_progress",
    agentCallMode: call.mode,
    subTraceIds: [...call.subTraceIds],
    selfStats: emptyGoalStats(),
    cumulativeStats: emptyGoalStats(),
    createdAt: call.now,
    updatedAt: call.now,
  };
  return { tree: { ...tree, goals: [...tree.goals, goal], nextId: tree.nextId + 1 }, goalId: id, created: true };
}

export interface AgentCallFinish {
  goalId: string;
  /** Per sub-trace id, what the parent keeps of it: its report, not its transcript. */
  metadata: Readonly<Record<string, SubTraceMetadata>>;
  /** Closes a goal `startAgentCall` created, with this summary; a goal the model owns stays open. */
  closeWith?: string;
  now: string;
}

/**
 * Records finished sub-traces on their agent_call goal: their metadata, and their totals rolled
 * into the cumulative stats of the goal and its ancestors. Returns the ids whose stats changed. Pure.
 */
export function finishAgentCall(tree: GoalTree, finish: AgentCallFinish): { tree: GoalTree; affectedGoals: string[] } {
  const goal = findGoal(tree, finish.goalId);
  if (goal?.type !== "agent_call") {
    throw new ArborError("invalid_input", `Goal ${finish.goalId} is not an agent_call goal of this tree.`);
  }
  let next = replaceGoal(tree, {
    ...goal,
    subTraceMetadata: { ...goal.subTraceMetadata, ...finish.metadata },
    ...(finish.closeWith !== undefined && goal.status === "in_progress"
      ? { status: "completed" as const, summary: finish.closeWith }
      : {}),
    updatedAt: finish.now,
  });
  const affected = new Set<string>();
  for (const meta of Object.values(finish.metadata)) {
    const update = addSubTraceStats(next, finish.goalId, meta.stats);
    next = update.tree;
    for (const id of update.affectedGoals) affected.add(id);
  }
  return { tree: next, affectedGoals: [...affected] };
}

function replaceGoal(tree: GoalTree, goal: Goal): GoalTree {
  return { ...tree, goals: tree.goals.map((g) => (g.id === goal.id ? goal : g)) };
}
