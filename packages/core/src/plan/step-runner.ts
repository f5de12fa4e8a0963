import { randomUUID } from "node:crypto";
import { branchRecorder, resultMetadata } from "../agents/sub-trace-record.js";
import { DELEGATE_CONTEXT } from "../agents/sub-traces.js";
import { finishAgentCall, startAgentCall } from "../goal/agent-call.js";
import type { TraceLaunch } from "../loop/extension.js";
import { addUsage, type RunContext, type RunEventInput } from "../loop/run-context.js";
import type { RunInput, RunResult } from "../loop/types.js";
import type { SubagentStatus } from "../model/entry.js";
import { subTraceId } from "../model/ids.js";
import type { RunEvent } from "../model/run-events.js";
import type { TraceContext } from "../model/session.js";
import { applyEntry } from "../session/context.js";
import { EXECUTOR_SYSTEM, executorPrompt } from "./executor-prompt.js";
import { appendGoalTree } from "./plan-entries.js";
import { startStepGoal } from "./plan-goals.js";
import { cutText, type PlanStep, type PlanStepStatus, RESULT_CHARS } from "./plan-schema.js";
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

/** Runs an executor's sub-run; `plan` is what its `plan_update` reports to. */
export type StepExecutor = (
  input: RunInput,
  sessionId: string,
  signal: AbortSignal,
  emit: (event: RunEventInput) => void,
  launch: TraceLaunch,
  plan: PlanState,
) => Promise<RunResult>;

/** Events of the executor the parent's stream shows live (SPEC 12: sub-agent work is not invisible). */
function forward(ctx: RunContext, traceId: string, event: RunEventInput): void {
  switch (event.type) {
    case "token":
    case "reasoning":
    case "tool_start":
    case "tool_end":
      ctx.emit(event);
      return;
    case "llm_start":
    case "llm_end":
      ctx.emit({ ...event, node: "executor" });
      return;
    case "permission_request":
      ctx.emit({ ...event, metadata: { ...event.metadata, sub_trace_id: traceId } });
      return;
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

function subagentStatus(result: RunResult): SubagentStatus {
  if (result.status === "aborted") return "aborted";
  if (result.status === "error") return "failed";
  if (result.stopReason === "max_turns") return "max_turns";
  if (result.stopReason === "budget") return "budget";
  return "completed";
}

/** A fresh step id: phase 2 runs one step at a time per session, so a lookup is enough to stay unique. */
async function stepTraceId(ctx: RunContext): Promise<string> {
  const at = new Date(ctx.clock.now());
  for (let seq = 1; ; seq++) {
    const id = subTraceId(ctx.sessionId, PLAN_STEP_MODE, at, seq);
    if (!(await ctx.store.getSession(id))) return id;
  }
}

/**
 * Runs one step as its own executor sub-trace (SPEC 7), recorded like any sub-trace (SPEC 3): the
 * step's goal becomes an `agent_call` of mode `plan_step`, a `subagent_batch` and `subagent_result`
 * pair goes in this session, watchers hear it start and end. `plan_updated` says running, then
 * completed or failed.
 */
export async function runPlanStep(
  ctx: RunContext,
  state: PlanState,
  step: PlanStep,
  past: readonly PastStep[],
  execute: StepExecutor,
): Promise<PastStep> {
  const plan = state.plan!;
  const now = () => new Date(ctx.clock.now()).toISOString();
  const traceId = await stepTraceId(ctx);
  const goalId = step.goalId;
  const goals = ctx.services?.goals;
  const tree = goals?.get();
  if (goalId && tree) {
    const focused = startStepGoal(tree, goalId, now());
    const call = startAgentCall(focused.tree, {
      mode: PLAN_STEP_MODE,
      description: step.title,
      subTraceIds: [traceId],
      now: now(),
    });
    state.applyGoals({ tree: call.tree, affectedGoals: [goalId], addedGoals: [] });
  }
  state.setStep(step.id, "running", undefined, traceId);
  const batchId = `batch_${randomUUID().slice(0, 8)}`;
  const batch = await ctx.store.appendEntry(ctx.sessionId, {
    type: "subagent_batch",
    batchId,
    mode: PLAN_STEP_MODE,
    ...(goalId ? { goalId } : {}),
    tasks: [{ task: step.title, subSessionId: traceId }],
  });
  ctx.state = applyEntry(ctx.state, batch);
  ctx.publish(
    {
      event: "sub_trace_started",
      parent_trace_id: ctx.sessionId,
      ...(goalId ? { parent_goal_id: goalId } : {}),
      agent_type: PLAN_STEP_MODE,
      task: step.title,
    },
    traceId,
  );

  const recorder = branchRecorder(() => ctx.clock.now());
  const position = plan.steps.findIndex((s) => s.id === step.id) + 1;
  const result = await execute(
    {
      prompt: executorPrompt({ title: plan.title, step, position, total: plan.steps.length, past }),
      agent: EXECUTOR_AGENT,
      model: ctx.model.model,
      cwd: ctx.cwd,
      system: EXECUTOR_SYSTEM,
    },
    traceId,
    ctx.signal,
    (event) => {
      recorder.see(event as RunEvent);
      forward(ctx, traceId, event);
    },
    {
      parentSessionId: ctx.sessionId,
      ...(goalId ? { parentGoalId: goalId } : {}),
      agentType: PLAN_STEP_MODE,
      task: step.title,
      context: EXECUTOR_CONTEXT,
    },
    state,
  );
  ctx.usage = addUsage(ctx.usage, result.usage);
  ctx.cost += result.cost;
  ctx.step += result.steps;

  const status = subagentStatus(result);
  const record = await recorder.finish(ctx.store, { traceId, task: step.title, status, result });
  const after = goals?.get();
  if (goalId && after) {
    const finish = finishAgentCall(after, { goalId, metadata: { [traceId]: record.metadata }, now: now() });
    state.applyGoals({ tree: finish.tree, affectedGoals: finish.affectedGoals, addedGoals: [] });
  }
  const entry = await ctx.store.appendEntry(ctx.sessionId, {
    type: "subagent_result",
    batchId,
    subSessionId: traceId,
    status,
    summary: record.outcome.summary,
    metadata: resultMetadata(record),
  });
  ctx.state = applyEntry(ctx.state, entry);
  ctx.publish(
    {
      event: "sub_trace_completed",
      status,
      summary: record.outcome.summary,
      stats: {
        total_messages: record.metadata.stats.messageCount,
        total_tokens: record.metadata.stats.totalTokens,
        total_cost: record.metadata.stats.totalCost,
      },
    },
    traceId,
  );

  // The executor's own word (plan_update) decides over a run that merely ended well.
  const report = state.reports.get(step.id);
  state.reports.delete(step.id);
  const outcome: PlanStepStatus =
    status !== "completed" || report?.status === "failed" ? "failed" : report?.status === "skipped" ? "skipped" : "completed";
  const text = report?.note ? `${record.outcome.summary}\n${report.note}` : record.outcome.summary;
  const marked = outcome === "failed" && !text.startsWith("[") ? `[ERROR] ${text}` : text;
  state.setStep(step.id, outcome, cutText(marked, RESULT_CHARS));
  await appendGoalTree(ctx);
  return { title: step.title, status: outcome, result: marked };
}
