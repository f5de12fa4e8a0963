import type { Config } from "../config/schema.js";
import { ArborError } from "../errors.js";
import type { ResolvedModel } from "../llm/resolved-model.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
import type { StepsOutcome } from "../loop/run-types.js";
import type { PermissionRule } from "../permissions/permission.js";
import type { PhaseTwoDeps } from "./phase-two.js";
import { appendGoalTree, appendPlanRecord } from "./plan-entries.js";
import type { PlanApprovalAnswer, PlanGate } from "./plan-gate.js";
import { latestPlanRecord, planOfLatestRun } from "./plan-record.js";
import { sessionOfPlan, stepView } from "./plan-schema.js";
import { executorPlanView, PlanState } from "./plan-state.js";
import { PLAN_CREATE_TOOL, PLAN_UPDATE_TOOL, planCreateTool, planUpdateTool } from "./plan-tools.js";
import { planKey } from "./run-plan.js";
import type { StepLauncher } from "./step-runner.js";

/** How a run takes part in plan mode, beyond an ordinary phase 1. */
export type PlanExecution =
  /** The run that asked is gone: record this answer to the waiting plan and go on from there. */
  | { approval: PlanApprovalAnswer & { planId: string } }
  /** The executor of a step: its `plan_update` reports to this plan. */
  | { step: PlanState };

/** What plan mode borrows from the runtime. */
export interface PlanModeDeps {
  config: Config;
  /** Runs waiting for a plan's approval, and who answers them. */
  gate: PlanGate;
  /** The replanner's model for a run on `model`; undefined means no replanning. */
  replannerModel(model: ResolvedModel): ResolvedModel | undefined;
  /** How the run starts its steps' executors. */
  steps(ctx: RunContext): StepLauncher;
}

/**
 * Rules that hide the plan tools where plan mode is off: PLAN_ENABLED false, and sub-traces other
 * than plan steps (a sub-agent plans with `goal`; a step's executor may only report).
 */
export function planToolRules(config: Config, execution: PlanExecution | undefined, isTrace: boolean): PermissionRule[] {
  const deny = (permission: string): PermissionRule => ({ permission, pattern: "*", action: "deny" });
  if (execution !== undefined && "step" in execution) return [deny(PLAN_CREATE_TOOL)];
  if (!config.plan.enabled || isTrace) return [deny(PLAN_CREATE_TOOL), deny(PLAN_UPDATE_TOOL)];
  return [];
}

/** Ends the run without phase 2: the plan goal is abandoned and the user and model read why. */
async function reject(ctx: RunContext, state: PlanState, reason: string | undefined): Promise<StepsOutcome> {
  const plan = state.plan!;
  state.closePlan("abandoned", `Not approved${reason ? `: ${reason}` : ""}`);
  await appendGoalTree(ctx);
  const why = reason?.trim().replace(/[.!]+$/, "");
  const text = `The plan "${plan.title}" was not approved${why ? `: ${why}.` : "."} None of its steps were run.`;
  const { finalMessage } = await import("./phase-two.js");
  await finalMessage(ctx, state, text);
  return { status: "done", stopReason: "plan_rejected" };
}

/**
 * The approval gate, so a person sees the plan before any step runs: the request is recorded as an
 * ask in the store (so every process lists and answers it, and it outlives this one), in the
 * session, and announced; then the run waits for an answer or an abort. A plan asked before (its
 * run cut off) waits on the same ask, and takes the answer given meanwhile without asking again.
 */
async function askApproval(ctx: RunContext, state: PlanState, deps: PlanModeDeps): Promise<PlanApprovalAnswer> {
  const plan = state.plan!;
  const steps = plan.steps.map(stepView);
  const ask = await deps.gate.open({ planId: plan.planId, sessionId: ctx.sessionId, title: plan.title, steps });
  if (ask.answer) return deps.gate.wait(ask, ctx.signal);
  const answer = deps.gate.wait(ask, ctx.signal);
  // Settled here too, so an abort while the record is written is not an unhandled rejection.
  answer.catch(() => {});
  await appendPlanRecord(ctx, { plan, status: "awaiting_approval" });
  ctx.emit({ type: "plan_approval_request", plan_id: plan.planId, title: plan.title, steps });
  return answer;
}

/** Reads the waiting plan back from the session for an answer that arrived after its run ended. */
async function resumePlan(ctx: RunContext, state: PlanState, planId: string): Promise<void> {
  if (sessionOfPlan(planId) !== ctx.sessionId) {
    throw new ArborError("plan_not_found", `Plan ${planId} does not belong to session ${ctx.sessionId}.`);
  }
  const record = latestPlanRecord(await ctx.store.getActivePath(ctx.sessionId), planId);
  if (!record) throw new ArborError("plan_not_found", `Session ${ctx.sessionId} has no plan ${planId} on its current branch.`);
  if (record.status !== "awaiting_approval") {
    throw new ArborError("plan_not_pending", `Plan ${planId} is not waiting for approval: it is ${record.status}.`);
  }
  state.plan = record.plan;
}

/**
 * Plan mode for one run: it offers the plan tools in every run and hides them with `rules` where
 * they may not act. The main run gets both, then after phase 1 the approval gate and phase 2; an
 * executor gets a view that reports to the plan it works for; elsewhere the tools stay hidden.
 */
export function planExtension(
  deps: PlanModeDeps,
  execution: PlanExecution | undefined,
  isTrace: boolean,
  woken = false,
): RunExtension {
  const rules = planToolRules(deps.config, execution, isTrace);
  const tools = [planCreateTool(), planUpdateTool()];
  if (execution && "step" in execution) {
    const view = executorPlanView(execution.step);
    return { name: "plan", tools, rules, start: (ctx) => ctx.values.set(planKey, view) };
  }
  const approval = execution?.approval;
  if (!approval && (!deps.config.plan.enabled || isTrace)) return { name: "plan", tools, rules };
  let state: PlanState | undefined;
  const started = (): PlanState => {
    if (!state) throw new Error("plan mode has not started");
    return state;
  };
  return {
    name: "plan",
    tools,
    rules,
    start(ctx) {
      state = new PlanState(ctx, deps.config.plan.maxSteps);
      ctx.values.set(planKey, state);
    },
    // Phase 1 ends right after the step that called plan_create; the plan runs next.
    stop: () => (state?.stopsPhaseOne ? "finished" : undefined),
    around: (ctx, phaseOne) => planRun(ctx, started(), deps, approval, woken, phaseOne),
  };
}

/** Phase 2, the approved plan's steps: its modules (steps, replanning) load with the first plan approved. */
async function runPhaseTwo(ctx: RunContext, state: PlanState, deps: PhaseTwoDeps): Promise<StepsOutcome> {
  return (await import("./phase-two.js")).runPhaseTwo(ctx, state, deps);
}

/** Phase 1, then the approval gate and phase 2; or, for an answer that came after its run ended, only the latter. */
async function planRun(
  ctx: RunContext,
  state: PlanState,
  deps: PlanModeDeps,
  approval: (PlanApprovalAnswer & { planId: string }) | undefined,
  woken: boolean,
  phaseOne: () => Promise<StepsOutcome>,
): Promise<StepsOutcome> {
  const phaseTwo: PhaseTwoDeps = { steps: deps.steps(ctx), replanner: () => deps.replannerModel(ctx.model) };
  // A run woken after its process died goes on in the phase it was in.
  const latest = woken ? planOfLatestRun(await ctx.store.getActivePath(ctx.sessionId)) : undefined;
  const cutOff = latest && ["awaiting_approval", "approved", "running"].includes(latest.status) ? latest : undefined;
  if (cutOff) state.plan = cutOff.plan;
  if (cutOff?.status === "approved" || cutOff?.status === "running") return runPhaseTwo(ctx, state, phaseTwo);
  let answer: PlanApprovalAnswer;
  if (approval) {
    await resumePlan(ctx, state, approval.planId);
    answer = { approved: approval.approved, ...(approval.reason !== undefined ? { reason: approval.reason } : {}) };
  } else {
    if (cutOff?.status !== "awaiting_approval") {
      const outcome = await phaseOne();
      // A refusal or a loop stops the run before its plan is acted on.
      if (!state.created || outcome.status !== "done" || outcome.stopReason !== "finished") return outcome;
      if (!deps.config.plan.requireApproval) return runPhaseTwo(ctx, state, phaseTwo);
    }
    // A plan that waited when its process died waits again, asked the same way.
    try {
      answer = await askApproval(ctx, state, deps);
    } catch (err) {
      if (ctx.signal.aborted) return { status: "aborted" };
      throw err;
    }
  }
  const plan = state.plan!;
  await appendPlanRecord(ctx, {
    plan,
    status: answer.approved ? "approved" : "rejected",
    ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
  });
  if (!answer.approved) return reject(ctx, state, answer.reason);
  return runPhaseTwo(ctx, state, phaseTwo);
}
