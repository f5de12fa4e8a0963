import { ArborError, isArborError } from "../errors.js";
import type { RunHandle } from "../loop/run-types.js";
import { describeIssues } from "../model/validate.js";
import type { Store } from "../store/store.js";
import type { PlanApprovalAnswer, PlanGate } from "./plan-gate.js";
import { latestPlanRecord } from "./plan-record.js";
import { PlanIdSchema, sessionOfPlan } from "./plan-schema.js";

export interface PlanApprovalResult {
  planId: string;
  sessionId: string;
  approved: boolean;
  /**
   * The run that carries on, when the run that asked was gone (a restart, an abort): it records the
   * answer, then runs phase 2 or ends with the rejection. Absent when a run (here or in another
   * process over the store) waits on the plan and takes the answer.
   */
  run?: RunHandle;
}

export interface ApprovePlanDeps {
  gate: PlanGate;
  store: Store;
  /** Starts a run over the session that answers the waiting plan; rejects (`session_busy`) when it may not. */
  resume(sessionId: string, approval: PlanApprovalAnswer & { planId: string }): Promise<RunHandle>;
  /**
   * Starts that run only when nothing drives the session (a driver, here or in another process,
   * takes the answer from the store itself); undefined when something does.
   */
  resumeIfIdle(sessionId: string, approval: PlanApprovalAnswer & { planId: string }): Promise<RunHandle | undefined>;
  /** Who answers, when the front door knows. */
  by?: string;
}

/**
 * `runtime.approvePlan` (behind `POST /api/plan/approve`): records the answer on the plan's ask in
 * the store, exactly once, so the run waiting on it goes on wherever it runs; when no run drives
 * the session any more, a new run here carries on from the answer. A plan recorded as waiting
 * with no ask (asked before asks were kept in the store) is checked in the session and resumed.
 * Throws `invalid_input`, `plan_not_found`, `plan_not_pending` (answered already) or `ask_expired`
 * having changed nothing.
 */
export async function approvePlan(
  deps: ApprovePlanDeps,
  input: { planId: string; approved: boolean; reason?: string },
): Promise<PlanApprovalResult> {
  const parsed = PlanIdSchema.safeParse(input.planId);
  if (!parsed.success) throw new ArborError("invalid_input", `plan_id is not valid: ${describeIssues(parsed.error)}.`);
  const planId = parsed.data;
  const sessionId = sessionOfPlan(planId);
  const answer: PlanApprovalAnswer = {
    approved: input.approved,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
  };
  const ask = await deps.gate.find(planId);
  if (ask) {
    let answered: Awaited<ReturnType<PlanGate["answer"]>>;
    try {
      answered = await deps.gate.answer(ask, answer, deps.by);
    } catch (err) {
      if (!isArborError(err, "ask_already_answered")) throw err;
      throw new ArborError(
        "plan_not_pending",
        `Plan ${planId} is not waiting for approval: it was answered already.`,
        err.details,
      );
    }
    if (answered.waitedHere) return { planId, sessionId, approved: input.approved };
    const run = await deps.resumeIfIdle(sessionId, { planId, ...answer });
    return { planId, sessionId, approved: input.approved, ...(run ? { run } : {}) };
  }
  if (!(await deps.store.getSession(sessionId))) {
    throw new ArborError("plan_not_found", `No plan ${planId}: its session ${sessionId} does not exist.`);
  }
  const record = latestPlanRecord(await deps.store.getActivePath(sessionId), planId);
  if (!record)
    throw new ArborError("plan_not_found", `Session ${sessionId} has no plan ${planId} waiting on its current branch.`);
  if (record.status !== "awaiting_approval") {
    throw new ArborError("plan_not_pending", `Plan ${planId} is not waiting for approval: it was ${record.status} already.`);
  }
  // The resumed run checks the record again inside the session's queue, so two answers racing here
  // resume it once; the second run ends with plan_not_pending.
  return { planId, sessionId, approved: input.approved, run: await deps.resume(sessionId, { planId, ...answer }) };
}
