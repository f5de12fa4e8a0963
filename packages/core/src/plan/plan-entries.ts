import { GOAL_TREE_ENTRY_TYPE } from "../goal/goal-path.js";
import { goalsKey } from "../goal/goals-key.js";
import { appendCustom } from "../loop/journal.js";
import type { RunContext } from "../loop/run-context.js";
import { PLAN_ENTRY_TYPE, type PlanRecord } from "./plan-record.js";

/** Records where the plan stands (see plan-record.ts). */
export async function appendPlanRecord(ctx: RunContext, record: PlanRecord): Promise<void> {
  await appendCustom(ctx, PLAN_ENTRY_TYPE, record);
}

/**
 * Records the run's goal tree in the session: phase 2 changes the plan's goals outside any tool
 * result, and `goalTreeOnPath` reads the tree back from these entries after a restart.
 */
export async function appendGoalTree(ctx: RunContext): Promise<void> {
  const tree = ctx.values.get(goalsKey)?.get();
  if (tree) await appendCustom(ctx, GOAL_TREE_ENTRY_TYPE, { tree });
}
