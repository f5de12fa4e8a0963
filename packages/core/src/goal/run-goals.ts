import type { AffectedGoal } from "../events/watch-events.js";
import type { RunLaunch } from "../loop/extension.js";
import { appendCustom } from "../loop/journal.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
import { GOAL_COMPACTION_ENTRY_TYPE, type GoalCompactionData } from "../session/goal-collapse.js";
import { goalCompactionsFor } from "./goal-compactions.js";
import { goalTreeOnPath, messageStats } from "./goal-path.js";
import { defineGoalTool } from "./goal-tool.js";
import type { GoalTree } from "./goal-tree.js";
import { goalStatsToWire, goalToWire } from "./goal-wire.js";
import { goalsKey, type RunGoals } from "./goals-key.js";
import { recordMessage } from "./stats.js";
import { toPrompt } from "./to-prompt.js";
import { findGoal } from "./tree-walk.js";

/** What watchers are told of goals whose stats or status changed: the goal first, then its ancestors. */
export function affectedGoals(tree: GoalTree, ids: readonly string[]): AffectedGoal[] {
  const out: AffectedGoal[] = [];
  for (const id of ids) {
    const goal = findGoal(tree, id);
    if (!goal) continue;
    out.push({
      goal_id: id,
      status: goal.status,
      ...(goal.summary !== undefined ? { summary: goal.summary } : {}),
      self_stats: goalStatsToWire(goal.selfStats),
      cumulative_stats: goalStatsToWire(goal.cumulativeStats),
    });
  }
  return out;
}

/**
 * The goal tree as an extension of a run. The tree is the latest one recorded on the
 * session's path and changes through `goal`, sub-agent and plan calls (the run's `goalsKey` slot).
 * The extension offers the `goal` tool.
 * Every message a step writes belongs to the goal in focus when the step began, so a step collapses
 * whole; outside a step a message belongs to the goal in focus. Closed goals collapse once the
 * step's tool results are all written, and the tree in force closes the system prompt.
 */
export function goalExtension(launch: RunLaunch): RunExtension {
  let tree = goalTreeOnPath(launch.path);
  /** Goal compactions the step's calls asked for, written after its last tool result. */
  const compactions: GoalCompactionData[] = [];
  /** The goal of the step under way; undefined between steps. */
  let stepGoal: string | null | undefined;
  return {
    name: "goals",
    tools: [defineGoalTool()],
    start(ctx) {
      const goals: RunGoals = {
        get: () => tree,
        mission: launch.mission,
        set(next, change) {
          const before = tree;
          tree = next;
          compactions.push(...goalCompactionsFor(before, next, change.addedGoals));
          publishGoalChange(ctx, before, next, change);
          // A readable copy for stores that keep one; the record is the tool result on the path.
          ctx.store.cacheGoalTree?.(ctx.sessionId, { leafEntryId: ctx.state.leafId, tree: next })?.catch(() => undefined);
        },
      };
      ctx.values.set(goalsKey, goals);
    },
    system: () => (tree && tree.goals.length > 0 ? toPrompt(tree) : undefined),
    beforeStep() {
      stepGoal = tree?.currentId ?? null;
    },
    message(_ctx, message) {
      const goalId = stepGoal !== undefined ? stepGoal : (tree?.currentId ?? null);
      return goalId === null || message.goalId !== undefined ? message : { ...message, goalId };
    },
    written(_ctx, entry) {
      const goalId = entry.message.goalId;
      if (!tree || goalId === undefined || !findGoal(tree, goalId)) return undefined;
      const update = recordMessage(tree, goalId, messageStats(entry.message));
      tree = update.tree;
      return { affectedGoals: affectedGoals(update.tree, update.affectedGoals) };
    },
    afterStep(ctx) {
      stepGoal = undefined;
      // A step that compacted no goal (nearly all) has nothing to write and nothing to wait for.
      if (compactions.length === 0) return;
      return writeCompactions(ctx, compactions.splice(0));
    },
  };
}

/** Writes a step's goal compactions in the order they were asked for. */
async function writeCompactions(ctx: RunContext, compactions: readonly GoalCompactionData[]): Promise<void> {
  for (const data of compactions) await appendCustom(ctx, GOAL_COMPACTION_ENTRY_TYPE, data);
}

function publishGoalChange(
  ctx: RunContext,
  before: GoalTree | undefined,
  tree: GoalTree,
  change: { affectedGoals: readonly string[]; addedGoals: readonly string[] },
): void {
  for (const id of change.addedGoals) {
    const goal = findGoal(tree, id);
    if (goal) ctx.publish({ event: "goal_added", goal: goalToWire(goal), parent_id: goal.parentId });
  }
  const added = new Set(change.addedGoals);
  for (const id of change.affectedGoals) {
    if (added.has(id)) continue;
    const goal = findGoal(tree, id);
    if (!goal) continue;
    const oldGoal = before ? findGoal(before, id) : undefined;
    const old = oldGoal ? goalToWire(oldGoal) : undefined;
    const now = goalToWire(goal);
    const updates: Record<string, unknown> = {};
    for (const key of ["status", "summary", "type", "agent_call_mode", "sub_trace_ids", "sub_trace_metadata"] as const) {
      if (JSON.stringify(old?.[key]) !== JSON.stringify(now[key])) updates[key] = now[key];
    }
    updates.cumulative_stats = now.cumulative_stats;
    ctx.publish({
      event: "goal_updated",
      goal_id: id,
      updates,
      affected_goals: affectedGoals(tree, [id, ...ancestorsOf(tree, id)]),
    });
  }
}

function ancestorsOf(tree: GoalTree, id: string): string[] {
  const out: string[] = [];
  for (let goal = findGoal(tree, id); goal?.parentId; goal = findGoal(tree, goal.parentId)) out.push(goal.parentId);
  return out;
}
