import { ArborError, isArborError, type PlanApprovalRequest } from "@arbor/core";
import { latestPlanRecord } from "@arbor/core/session";
import { sessionOfPlan } from "@arbor/core/wire";
import type { ServerContext } from "../context.js";
import { asPrincipal, principalOf } from "../http/principal.js";
import { defineRoute, type Route } from "../http/route.js";
import { PlanApprovalListResponse, PlanApprovalsQuery, PlanApproveRequest, PlanApproveResponse } from "../plan-schemas.js";
import { followRun } from "../streams/run-stream.js";

/** The plan approval gate over HTTP: answer a waiting plan, list the waiting ones. */

/** The session's plan recorded as waiting for approval with no ask in the store (asked before asks were stored). */
async function recordedRequest(ctx: ServerContext, sessionId: string): Promise<PlanApprovalRequest | undefined> {
  if (!(await ctx.store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  const record = latestPlanRecord(await ctx.store.getActivePath(sessionId));
  if (record?.status !== "awaiting_approval") return undefined;
  const { plan } = record;
  // A plan with an ask is listed from it, or was answered already (its run has yet to record it).
  const asks = await ctx.store.listAsks({ sessionId, kind: "plan" });
  if (asks.some((a) => a.request.planId === plan.planId)) return undefined;
  return {
    planId: plan.planId,
    sessionId,
    title: plan.title,
    steps: plan.steps.map(({ id, title, status }) => ({ id, title, status })),
  };
}

export function planRoutes(ctx: ServerContext): Route[] {
  const { runtime } = ctx;
  const approve = defineRoute(
    {
      method: "POST",
      path: "/api/plan/approve",
      scope: "run",
      tag: "approvals",
      summary: "Approve or reject a plan waiting for approval",
      description:
        "Answers the `plan_approval_request` of a run: approved, the run goes on to execute the plan; rejected, it ends with a message. " +
        "The request is an ask in the store, answered exactly once from any instance over it: the run waiting on it goes on wherever it runs, also after restarts and takeovers; " +
        "when no run drives the session any more, a new run here records the answer and carries on (`resumed`).",
      body: PlanApproveRequest,
      responses: {
        200: { description: "The answer was taken.", schema: PlanApproveResponse },
        400: "Invalid body or plan_id.",
        404: "No such plan waits (wrong id, or not on the session's current branch).",
        409: "The plan was answered already, or its session is busy with another run.",
      },
    },
    async ({ body }, c) => {
      let result: Awaited<ReturnType<typeof runtime.asks.approvePlan>>;
      try {
        // A resumed run streams like a chat: the runtime refuses (409) a session another run drives.
        result = await runtime.asks.approvePlan(body.plan_id, body.approved, body.reason, { busy: "reject", ...asPrincipal(c) });
      } catch (err) {
        // In a cluster the run waiting on the plan may be another instance's: that one takes the answer.
        if (!(isArborError(err, "session_busy") && ctx.cluster)) throw err;
        if (!(await ctx.cluster.approvePlan(body.plan_id, body.approved, body.reason))) throw err;
        return c.json({
          plan_id: body.plan_id,
          session_id: sessionOfPlan(body.plan_id),
          approved: body.approved,
          resumed: false,
        });
      }
      // The runtime records the resumed run; clients read it from the log (GET /api/chat/:id/stream),
      // so following it here only drops the handle's own copy of its events.
      if (result.run) followRun(ctx, result.run);
      return c.json({
        plan_id: result.planId,
        session_id: result.sessionId,
        approved: result.approved,
        resumed: result.run !== undefined,
      });
    },
  );

  const list = defineRoute(
    {
      method: "GET",
      path: "/api/plan/pending",
      scope: "read",
      tag: "approvals",
      summary: "Plans waiting for approval, oldest first",
      description:
        "Plans waiting for approval in every instance over the store (their asks, unanswered and unexpired), which POST /api/plan/approve answers from any of them; " +
        "with session_id, only that session's, including a plan recorded as waiting before asks were stored.",
      query: PlanApprovalsQuery,
      responses: { 200: { description: "Waiting plans.", schema: PlanApprovalListResponse }, 404: "No such session." },
    },
    async ({ query }, c) => {
      const plans: (PlanApprovalRequest & { askId?: string; expiresAt?: string })[] = await runtime.access.visible(
        principalOf(c),
        await runtime.asks.listPlans(query.session_id),
        (p) => p.sessionId,
      );
      if (query.session_id !== undefined) {
        const recorded = await recordedRequest(ctx, query.session_id);
        if (recorded && !plans.some((p) => p.planId === recorded.planId)) plans.push(recorded);
      }
      return c.json({
        plans: plans.map((p) => ({
          plan_id: p.planId,
          session_id: p.sessionId,
          title: p.title,
          steps: p.steps,
          ...(p.askId === undefined ? {} : { ask_id: p.askId }),
          ...(p.expiresAt === undefined ? {} : { expires_at: p.expiresAt }),
        })),
      });
    },
  );

  return [approve, list];
}
