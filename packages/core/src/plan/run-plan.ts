import type { GoalTree } from "../goal/goal-tree.js";
import { runKey } from "../tools/run-values.js";
import type { Plan, PlanStepStatus } from "./plan-schema.js";

/** What `plan_update` may set: a step's progress as its executor or the planner sees it. */
export type PlanUpdateStatus = Extract<PlanStepStatus, "completed" | "failed" | "skipped">;

export interface PlanChange {
  plan: Plan;
  /** The run's goal tree after the change, for the tool result that records it; absent in an executor. */
  goalTree?: GoalTree;
  message: string;
}

/**
 * What the plan tools use of a run (its `planKey` slot). The main run's plan can be created and
 * updated; an executor's view only reports on the plan it works for.
 */
export interface RunPlan {
  /** PLAN_MAX_STEPS: how many steps phase 2 runs at most. */
  readonly maxSteps: number;
  /** True once this run made its plan: phase 1 ends after the current step. */
  readonly stopsPhaseOne: boolean;
  /** Makes the run's plan; phase 1 stops after the step that called it. Throws `invalid_input` when not allowed. */
  create(input: { title: string; steps: readonly string[] }): PlanChange;
  /** Marks a step; throws `invalid_input` for an unknown or closed step, or when there is no plan. */
  update(input: { stepId: number; status: PlanUpdateStatus; note?: string }): PlanChange;
}

/** The run's plan, set by plan mode where the plan tools may act (the main run, a step's executor). */
export const planKey = runKey<RunPlan>("plan");
