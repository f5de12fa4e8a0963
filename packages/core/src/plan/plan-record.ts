import { z } from "zod";
import type { Entry } from "../model/entry.js";
import { PlanSchema } from "./plan-schema.js";

/**
 * A custom entry recording where a plan stands: waiting for approval, answered, each step of
 * phase 2 as it starts and ends, and how phase 2 ended. It makes the approval gate durable: after a restart the session still says which
 * plan waits, with its steps, so `POST /api/plan/approve` can resume it in a new run.
 */
export const PLAN_ENTRY_TYPE = "arbor.plan";

/** `running`: phase 2 is under way; the plan's steps say which ended and which one runs (with its sub-trace). */
export const PlanRecordStatusSchema = z.enum([
  "awaiting_approval",
  "approved",
  "running",
  "rejected",
  "completed",
  "aborted",
  "failed",
]);
export type PlanRecordStatus = z.infer<typeof PlanRecordStatusSchema>;

export const PlanRecordSchema = z.looseObject({
  plan: PlanSchema,
  status: PlanRecordStatusSchema,
  /** The approver's reason, or what ended the plan. */
  reason: z.string().optional(),
});
export type PlanRecord = z.infer<typeof PlanRecordSchema>;

/** The latest record of a plan on a path (any plan when no id is given); damaged records are skipped. Pure. */
export function latestPlanRecord(path: readonly Entry[], planId?: string): PlanRecord | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type !== "custom" || entry.customType !== PLAN_ENTRY_TYPE) continue;
    const parsed = PlanRecordSchema.safeParse(entry.data);
    if (!parsed.success) continue;
    if (planId === undefined || parsed.data.plan.planId === planId) return parsed.data;
  }
  return undefined;
}

/**
 * The plan of the run that is the latest on the path: the latest record after its prompt (the
 * last user message that is not synthetic), if any. A woken run reads from it where its process
 * died: in phase 1 (none), awaiting approval, or in phase 2. Pure.
 */
export function planOfLatestRun(path: readonly Entry[]): PlanRecord | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "message" && entry.message.role === "user" && entry.message.synthetic !== true) return undefined;
    if (entry.type !== "custom" || entry.customType !== PLAN_ENTRY_TYPE) continue;
    const parsed = PlanRecordSchema.safeParse(entry.data);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}
