import { PlanIdSchema } from "@arbor/core/wire";
import { z } from "zod";
import { SessionId } from "./id-schemas.js";

/** `POST /api/plan/approve`, with the snake_case field names clients already send. */
export const PlanApproveRequest = z.strictObject({
  plan_id: PlanIdSchema.describe("The `plan_id` of the `plan_approval_request` event."),
  approved: z.boolean(),
  reason: z.string().max(10_000).optional().describe("Why; a rejection's reason is shown to the user and the model."),
});

export const PlanApproveResponse = z.object({
  plan_id: z.string(),
  session_id: z.string(),
  approved: z.boolean(),
  resumed: z
    .boolean()
    .describe(
      "True when the run that asked was gone (a server restart, an abort): a new run over the session records the answer and carries on; read it with GET /api/sessions/{session_id}/stream.",
    ),
});

export const PlanApprovalWire = z.object({
  plan_id: z.string(),
  session_id: z.string(),
  title: z.string(),
  steps: z.array(z.object({ id: z.number(), title: z.string(), status: z.string() })),
  ask_id: z
    .string()
    .optional()
    .describe(
      "The plan's ask in the store (`plan_…`), which `arbor approve <ask-id>` answers; absent for a plan asked before asks were stored.",
    ),
  expires_at: z.string().optional().describe("ISO-8601: unanswered by then, the plan is refused."),
});
export const PlanApprovalListResponse = z.object({ plans: z.array(PlanApprovalWire) });

export const PlanApprovalsQuery = z.object({
  session_id: SessionId.optional().describe("Only the plans of this session, including one whose run is gone."),
});
