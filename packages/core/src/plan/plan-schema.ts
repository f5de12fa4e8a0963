import { z } from "zod";
import { GoalIdSchema } from "../goal/goal-tree.js";

/**
 * The two-phase plan (plan, approve, then run each step) as data. A plan is recorded in the session (tool results
 * and `arbor.plan` entries) and read back after a restart, so every shape here is a zod schema.
 */

/** `pending` until run; `skipped` when the plan ended before reaching it (PLAN_MAX_STEPS). */
export const PlanStepStatusSchema = z.enum(["pending", "running", "completed", "failed", "skipped"]);
export type PlanStepStatus = z.infer<typeof PlanStepStatusSchema>;

export const PlanStepSchema = z.looseObject({
  /** 1, 2, …; revised steps continue the count, so an id always names one step. */
  id: z.number().int().positive(),
  title: z.string().min(1),
  status: PlanStepStatusSchema,
  /** The goal that holds the step in the session's goal tree: steps are goals, so the plan is drawn like any other. */
  goalId: GoalIdSchema.optional(),
  /** The executor sub-trace that ran the step. */
  subTraceId: z.string().optional(),
  /** What the executor reported (or why the step failed), cut to RESULT_CHARS. */
  result: z.string().optional(),
});
export type PlanStep = z.infer<typeof PlanStepSchema>;

/**
 * A plan id names its session too (`{sessionId}:{8 hex}`), so an approval that arrives after a
 * server restart finds the session that waits for it without an index or a scan.
 */
const PLAN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,239}:[0-9a-f]{8}$/;
export const PlanIdSchema = z
  .string()
  .regex(PLAN_ID_PATTERN, "expected the plan_id of a plan_created event ({session id}:{8 hex digits})");

export const PlanSchema = z.looseObject({
  planId: PlanIdSchema,
  title: z.string().min(1),
  steps: z.array(PlanStepSchema),
  /** The goal the steps are under. */
  goalId: GoalIdSchema.optional(),
  /** The id the next added (revised) step gets. */
  nextStepId: z.number().int().positive(),
});
export type Plan = z.infer<typeof PlanSchema>;

/** Earlier steps' results are cut to this in executor and replanner prompts: enough to build on, short enough that a long plan still fits. */
export const RESULT_CHARS = 1000;

export function planIdFor(sessionId: string, randomHex: string): string {
  return `${sessionId}:${randomHex.slice(0, 8)}`;
}

/** The session a plan belongs to, read from its id. */
export function sessionOfPlan(planId: string): string {
  return planId.slice(0, planId.lastIndexOf(":"));
}

/** What events and the approval request show of a step: `{id, title}` and where it stands, not its result. */
export function stepView(step: PlanStep): { id: number; title: string; status: PlanStepStatus } {
  return { id: step.id, title: step.title, status: step.status };
}
