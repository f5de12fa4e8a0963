import { finishAgentCall, startAgentCall } from "../goal/agent-call.js";
import { goalsKey } from "../goal/goals-key.js";
import type { ExtensionFactory } from "../loop/extension.js";
import { chargeRun } from "../loop/journal.js";
import type { RunContext, RunEventInput } from "../loop/run-context.js";
import type { TraceContext } from "../model/session.js";
import { cutText } from "../model/text.js";
import { batchOfTrace } from "../subagents/branch-resume.js";
import type { SubAgentLauncher } from "../subagents/launcher.js";
import { DELEGATE_CONTEXT } from "../subagents/sub-traces.js";
import { EXECUTOR_SYSTEM, executorPrompt } from "./executor-prompt.js";
import { appendGoalTree, appendPlanRecord } from "./plan-entries.js";
import { startStepGoal } from "./plan-goals.js";
import { type PlanStep, type PlanStepStatus, RESULT_CHARS } from "./plan-schema.js";
import type { PlanState } from "./plan-state.js";
import { PLAN_CREATE_TOOL } from "./plan-tools.js";
import type { PastStep } from "./replanner.js";

/** The agent executors run as: the delegate sub-agent, all tools. */
export const EXECUTOR_AGENT = "general";
/** A plan step is a delegate-style sub-trace that cannot start a plan of its own. */
export const EXECUTOR_CONTEXT: TraceContext = Object.freeze({
  ...DELEGATE_CONTEXT,
  deniedTools: [PLAN_CREATE_TOOL],
}) as TraceContext;
/** Sub-trace ids of steps: `{session}@plan_step-{time}-{seq}`, and the mode of their batch entries. */
export const PLAN_STEP_MODE = "plan_step";

/** How phase 2 starts a step's executor: the run's sub-agent launcher, and the extensions of an executor's run. */
export interface StepLauncher {
  launcher: SubAgentLauncher;
  /** Extensions of an executor's run: its `plan_update` reports to `plan`. */
  executorExtensions(plan: PlanState): ExtensionFactory;
}

/**
 * Events of the executor the parent's stream shows live: sub-agent work is never invisible. Its
 * model calls are the executor's, and say which step they work on (`Executing step 2`).
 */
function forward(ctx: RunContext, event: RunEventInput, position: number): void {
  switch (event.type) {
    case "token":
    case "reasoning":
    case "tool_start":
    case "tool_progress":
    case "tool_end":
      ctx.emit(event);
      return;
    case "llm_start":
      ctx.emit({ ...event, node: "executor", motivation: event.motivation || `Executing step ${position}` });
      return;
    case "llm_end":
      ctx.emit({ ...event, node: "executor" });
      return;
    case "permission_request": // the launcher shows asks itself
    case "question_request":
    case "elicitation_request":
    case "elicitation_answered":
    case "done":
    case "error":
    case "plan_created":
    case "plan_updated":
    case "plan_revised":
    case "plan_approval_request":
      return;
    default: {
      const unreachable: never = event;
      throw new Error(`Unhandled run event: ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Runs one step as its own executor sub-trace, recorded like any sub-trace: the
 * step's goal becomes an `agent_call` of mode `plan_step`, a `subagent_batch` and `subagent_result`
 * pair goes in this session, watchers hear it start and end. `plan_updated` says running, then
 * completed or failed.
 */
export async function runPlanStep(
  ctx: RunContext,
  state: PlanState,
  step: PlanStep,
  past: readonly PastStep[],
  start: StepLauncher,
): Promise<PastStep> {
  const plan = state.plan!;
  const now = () => new Date(ctx.clock.now()).toISOString();
  // A step recorded running was cut off with its process: its executor's session continues.
  const cutOff = step.status === "running" ? step.subTraceId : undefined;
  const batch = cutOff ? batchOfTrace(await ctx.store.getActivePath(ctx.sessionId), cutOff) : undefined;
  const [traceId] = cutOff ? [cutOff] : await start.launcher.ids(PLAN_STEP_MODE, 1);
  const goalId = step.goalId;
  const goals = ctx.values.get(goalsKey);
  const tree = goals?.get();
  if (goalId && tree) {
    const focused = startStepGoal(tree, goalId, now());
    const call = startAgentCall(focused.tree, {
      mode: PLAN_STEP_MODE,
      description: step.title,
      subTraceIds: [traceId!],
      now: now(),
    });
    state.applyGoals({ tree: call.tree, affectedGoals: [goalId], addedGoals: [] });
  }
  state.setStep(step.id, "running", undefined, traceId);
  // Before the executor's session exists, so a crash from here on is resumed with this sub-trace.
  await appendPlanRecord(ctx, { plan: state.plan!, status: "running" });
  const position = plan.steps.findIndex((s) => s.id === step.id) + 1;
  const { branches } = await start.launcher.run({
    mode: PLAN_STEP_MODE,
    ...(goalId ? { goalId } : {}),
    ...(batch ? { resume: { batchId: batch.batchId } } : {}),
    ids: [traceId!],
    branches: [
      {
        task: step.title,
        input: {
          prompt: executorPrompt({ title: plan.title, step, position, total: plan.steps.length, past }),
          agent: EXECUTOR_AGENT,
          model: ctx.model.model,
          cwd: ctx.cwd,
          ...(ctx.workspace === undefined ? {} : { workspace: ctx.workspace }),
          system: EXECUTOR_SYSTEM,
        },
        context: EXECUTOR_CONTEXT,
      },
    ],
    limit: 1,
    signal: ctx.signal,
    extensions: start.executorExtensions(state),
    forward: (event) => forward(ctx, event, position),
    finished([done]) {
      const { result, traceId: id, record } = done!;
      // The step's entries are its executor's own session; this run counts what it spent.
      chargeRun(ctx, {
        usage: result.usage,
        cost: result.cost,
        costKnown: result.costKnown !== false,
        steps: result.steps,
        subRun: true,
      });
      const after = goals?.get();
      if (goalId && after) {
        const finish = finishAgentCall(after, { goalId, metadata: { [id]: record.metadata }, now: now() });
        state.applyGoals({ tree: finish.tree, affectedGoals: finish.affectedGoals, addedGoals: [] });
      }
    },
  });
  const { status, record } = branches[0]!;

  // The executor's own word (plan_update) decides over a run that merely ended well.
  const report = state.reports.get(step.id);
  state.reports.delete(step.id);
  const outcome: PlanStepStatus =
    status !== "completed" || report?.status === "failed" ? "failed" : report?.status === "skipped" ? "skipped" : "completed";
  const text = report?.note ? `${record.outcome.summary}\n${report.note}` : record.outcome.summary;
  const marked = outcome === "failed" && !text.startsWith("[") ? `[ERROR] ${text}` : text;
  state.setStep(step.id, outcome, cutText(marked, RESULT_CHARS));
  await appendGoalTree(ctx);
  await appendPlanRecord(ctx, { plan: state.plan!, status: "running" });
  return { title: step.title, status: outcome, result: marked };
}
