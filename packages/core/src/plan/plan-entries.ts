import { GOAL_TREE_ENTRY_TYPE } from "../goal/goal-path.js";
import type { RunContext } from "../loop/run-context.js";
import { applyEntry } from "../session/context.js";
import { PLAN_ENTRY_TYPE, type PlanRecord } from "./plan-record.js";

/** Appends a custom entry at the run's leaf and moves the run's context past it. */
async function appendCustom(ctx: RunContext, customType: string, data: unknown): Promise<void> {
  const entry = await ctx.store.appendEntry(ctx.sessionId, { type: "custom", customType, data });
  ctx.state = applyEntry(ctx.state, entry);
}

/** Records where the plan stands (see plan-record.ts). */
export function appendPlanRecord(ctx: RunContext, record: PlanRecord): Promise<void> {
  return appendCustom(ctx, PLAN_ENTRY_TYPE, record);
}

/**
 * Records the run's goal tree in the session: phase 2 changes the plan's goals outside any tool
 * result, and `goalTreeOnPath` reads the tree back from these entries (SPEC 5).
 */
export async function appendGoalTree(ctx: RunContext): Promise<void> {
  if (ctx.goals) await appendCustom(ctx, GOAL_TREE_ENTRY_TYPE, { tree: ctx.goals });
}
