import { GOAL_COMPACTION_ENTRY_TYPE, goalCompactionsFor } from "../context/goal-compaction.js";
import { messageSummary } from "../events/message-summary.js";
import type { AffectedGoal } from "../events/watch-events.js";
import type { RunContext } from "../loop/run-context.js";
import type { Entry } from "../model/entry.js";
import type { Message } from "../model/message.js";
import { applyEntry } from "../session/context.js";
import type { RunGoals } from "../tools/run-services.js";
import { messageStats } from "./goal-path.js";
import type { GoalTree } from "./goal-tree.js";
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
      self_stats: goal.selfStats,
      cumulative_stats: goal.cumulativeStats,
    });
  }
  return out;
}

/**
 * Appends one message of the run: tagged with the goal it was written under (SPEC 5: the goal in
 * focus, or the step's goal for a step's messages), added to the context and to the goal's stats,
 * and told to watchers with the goals it changed. The one way the loop writes messages.
 */
export async function appendRunMessage(
  ctx: RunContext,
  message: Message,
  goalId: string | null | undefined = ctx.goals?.currentId,
): Promise<Entry> {
  const tagged = goalId == null || message.goalId !== undefined ? message : { ...message, goalId };
  const entry = await ctx.store.appendMessage(ctx.sessionId, tagged);
  ctx.state = applyEntry(ctx.state, entry);
  let affected: AffectedGoal[] = [];
  const tree = ctx.goals;
  if (tree && tagged.goalId !== undefined && findGoal(tree, tagged.goalId)) {
    const update = recordMessage(tree, tagged.goalId, messageStats(tagged));
    ctx.goals = update.tree;
    affected = affectedGoals(update.tree, update.affectedGoals);
  }
  const summary = messageSummary(entry);
  if (summary) ctx.publish({ event: "message_added", message: summary, affected_goals: affected });
  return entry;
}

/** The run's side of the `goal` tool: its tree lives on the RunContext and changes are told to watchers. */
export function runGoals(ctx: RunContext): RunGoals {
  return {
    get: () => ctx.goals,
    mission: ctx.mission,
    set(tree, change) {
      const before = ctx.goals;
      ctx.goals = tree;
      ctx.goalCompactions.push(...goalCompactionsFor(before, tree, change.addedGoals));
      publishGoalChange(ctx, before, tree, change);
      // A readable copy for stores that keep one; the record is the tool result on the path.
      ctx.store.cacheGoalTree?.(ctx.sessionId, { leafEntryId: ctx.state.leafId, tree })?.catch(() => undefined);
    },
  };
}

function publishGoalChange(
  ctx: RunContext,
  before: GoalTree | undefined,
  tree: GoalTree,
  change: { affectedGoals: readonly string[]; addedGoals: readonly string[] },
): void {
  for (const id of change.addedGoals) {
    const goal = findGoal(tree, id);
    if (goal) ctx.publish({ event: "goal_added", goal, parent_id: goal.parentId });
  }
  const added = new Set(change.addedGoals);
  for (const id of change.affectedGoals) {
    if (added.has(id)) continue;
    const goal = findGoal(tree, id);
    if (!goal) continue;
    const old = before ? findGoal(before, id) : undefined;
    const updates: Record<string, unknown> = {};
    for (const key of ["status", "summary", "type", "agentCallMode", "subTraceIds", "subTraceMetadata"] as const) {
      if (JSON.stringify(old?.[key]) !== JSON.stringify(goal[key])) updates[key] = goal[key];
    }
    updates.cumulativeStats = goal.cumulativeStats;
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

/** Writes the goal compactions a step called for, after its last tool result, so whole steps collapse. */
export async function flushGoalCompactions(ctx: RunContext): Promise<void> {
  const pending = ctx.goalCompactions.splice(0);
  for (const data of pending) {
    const entry = await ctx.store.appendEntry(ctx.sessionId, { type: "custom", customType: GOAL_COMPACTION_ENTRY_TYPE, data });
    ctx.state = applyEntry(ctx.state, entry);
  }
}

/** The system prompt of one model call: the run's prompt with the current plan last (SPEC 4, 5). */
export function systemWithPlan(ctx: RunContext, system: string): string {
  const tree = ctx.goals;
  if (!tree || tree.goals.length === 0) return system;
  return `${system}\n\n${toPrompt(tree)}`;
}
