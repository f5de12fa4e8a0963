import { ArborError, isArborError, type PlanApprovalRequest } from "@arbor/core";
import { latestPlanRecord } from "@arbor/core/session";
import { sessionOfPlan } from "@arbor/core/wire";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";
import { PlanApprovalListResponse, PlanApprovalsQuery, PlanApproveRequest, PlanApproveResponse } from "../plan-schemas.js";
import { followRun } from "../streams/run-stream.js";

/** The plan approval gate over HTTP: answer a waiting plan, list the waiting ones. */
/** The session's plan that waits for approval with no run waiting on it (after a restart or an abort). */
async function recordedRequest(ctx: ServerContext, sessionId: string): Promise<PlanApprovalRequest | undefined> {
  if (!(await ctx.store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  const record = latestPlanRecord(await ctx.store.getActivePath(sessionId));
  if (record?.status !== "awaiting_approval") return undefined;
  const { plan } = record;
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
      tag: "approvals",
      summary: "Approve or reject a plan waiting for approval",
      description:
        "Answers the `plan_approval_request` of a run: approved, the run goes on to execute the plan; rejected, it ends with a message. " +
        "The request is recorded in the session, so it can be answered after a server restart too: a new run over the session then records the answer and carries on (`resumed`).",
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
        result = await runtime.asks.approvePlan(body.plan_id, body.approved, body.reason, { busy: "reject" });
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
      tag: "approvals",
      summary: "Plans waiting for approval, oldest first",
      description:
        "Plans that runs of this server wait on; with session_id, also that session's plan recorded as waiting whose run is gone (a restart), which POST /api/plan/approve still answers.",
      query: PlanApprovalsQuery,
      responses: { 200: { description: "Waiting plans.", schema: PlanApprovalListResponse }, 404: "No such session." },
    },
    async ({ query }, c) => {
      const plans = runtime.asks.pendingPlanApprovals(query.session_id);
      if (query.session_id !== undefined) {
        const recorded = await recordedRequest(ctx, query.session_id);
        if (recorded && !plans.some((p) => p.planId === recorded.planId)) plans.push(recorded);
      }
      return c.json({
        plans: plans.map((p) => ({ plan_id: p.planId, session_id: p.sessionId, title: p.title, steps: p.steps })),
      });
    },
  );

  return [approve, list];
}
