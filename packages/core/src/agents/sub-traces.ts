import { randomUUID } from "node:crypto";
import { finishAgentCall, startAgentCall } from "../goal/agent-call.js";
import { createGoalTree, type SubTraceMetadata } from "../goal/goal-tree.js";
import type { TraceLaunch } from "../loop/extension.js";
import type { RunContext, RunEventInput } from "../loop/run-context.js";
import type { RunInput, RunResult } from "../loop/types.js";
import type { SubagentStatus } from "../model/entry.js";
import type { RunEvent } from "../model/run-events.js";
import type { TraceContext } from "../model/session.js";
import { applyEntry } from "../session/context.js";
import type { SubAgentMode, SubTraceOutcome, SubTraceRequest, SubTraceRunner } from "../tools/run-services.js";
import { type BranchRecord, branchRecorder, resultMetadata } from "./sub-trace-record.js";

/** Read-only tools (plus `goal`, so a branch can plan) and 20 turns: seed 000's explore context. */
export const EXPLORE_CONTEXT: TraceContext = Object.freeze({
  allowedTools: ["read", "grep", "glob", "list", "goal"],
  maxTurns: 20,
}) as TraceContext;
/** Every tool and 50 turns: seed 000's delegate context. */
export const DELEGATE_CONTEXT: TraceContext = Object.freeze({ maxTurns: 50 }) as TraceContext;
/** Branches of one explore call running at once unless the trace's context says otherwise. */
export const DEFAULT_CONCURRENT_SUB_TRACES = 8;

const AGENT_FOR: Record<SubAgentMode, string> = { explore: "explore", delegate: "general" };

function subTraceSystem(mode: SubAgentMode): string {
  return [
    `You are a sub-agent (${mode}) working on one task for a parent agent.`,
    "Work only on that task. Your final message is all the parent sees of your work:",
    "end with a short report of what you found or did, with file paths and facts the parent needs.",
  ].join(" ");
}

function taskPrompt(request: SubTraceRequest, task: string): string {
  if (request.mode === "explore" && request.background) return `Background:\n${request.background}\n\nYour task: ${task}`;
  return task;
}

/** What starts a sub-run: the runtime's executeRun, bound to its dependencies. */
export type SubRunExecutor = (
  input: RunInput,
  sessionId: string,
  signal: AbortSignal,
  emit: (event: RunEventInput) => void,
  launch: TraceLaunch,
) => Promise<RunResult>;

export interface SubTraceRunnerDeps {
  execute: SubRunExecutor;
  /** The runtime's overrides of the default contexts. */
  contexts?: { explore?: TraceContext; delegate?: TraceContext };
  nextId(parentId: string, mode: string, at: Date): string;
  now(): number;
}

function statusOf(result: RunResult, timedOut: boolean): SubagentStatus {
  if (result.status === "aborted") return timedOut ? "timeout" : "aborted";
  if (result.status === "error") return "failed";
  if (result.stopReason === "max_turns") return "max_turns";
  if (result.stopReason === "budget") return "budget";
  return "completed";
}

/** Runs `jobs` with at most `limit` at once, keeping their order in the results. */
async function pooled<T>(jobs: ReadonlyArray<() => Promise<T>>, limit: number): Promise<T[]> {
  const out = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      out[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}

/**
 * `explore` and `delegate` for one run (SPEC 3): each task is a sub-trace, a session of its own in
 * the same store linked to this one, run in parallel within the trace's concurrency budget. The
 * calling goal becomes an `agent_call`; the batch and each result are recorded in this session;
 * a branch that fails, times out or is aborted still returns what it has, with its status.
 */
export function createSubTraceRunner(ctx: RunContext, deps: SubTraceRunnerDeps): SubTraceRunner {
  return {
    async run(request) {
      const now = () => new Date(deps.now());
      const goals = ctx.services?.goals;
      if (!goals) throw new Error("sub-traces need the run's goal services");
      const ids = request.tasks.map(() => deps.nextId(ctx.sessionId, request.mode, now()));
      const description =
        request.mode === "explore" ? `Explore ${request.tasks.length} directions` : `Delegate: ${request.tasks[0] ?? ""}`;
      const start = startAgentCall(goals.get() ?? createGoalTree(goals.mission), {
        mode: request.mode,
        description: description.slice(0, 200),
        subTraceIds: ids,
        now: now().toISOString(),
      });
      goals.set(start.tree, {
        affectedGoals: start.created ? [] : [start.goalId],
        addedGoals: start.created ? [start.goalId] : [],
      });
      const batchId = `batch_${randomUUID().slice(0, 8)}`;
      const batch = await ctx.store.appendEntry(ctx.sessionId, {
        type: "subagent_batch",
        batchId,
        mode: request.mode,
        goalId: start.goalId,
        tasks: request.tasks.map((task, i) => ({ task, subSessionId: ids[i]! })),
      });
      ctx.state = applyEntry(ctx.state, batch);

      const context =
        request.mode === "explore"
          ? { ...EXPLORE_CONTEXT, ...deps.contexts?.explore }
          : { ...DELEGATE_CONTEXT, ...deps.contexts?.delegate };
      const limit = ctx.budget.maxConcurrentSubTraces ?? DEFAULT_CONCURRENT_SUB_TRACES;
      const records = await pooled(
        request.tasks.map((task, i) => () => runBranch(ctx, deps, request, task, ids[i]!, start.goalId, context)),
        limit,
      );

      const metadata: Record<string, SubTraceMetadata> = {};
      for (const record of records) metadata[record.outcome.traceId] = record.metadata;
      const finish = finishAgentCall(goals.get() ?? start.tree, {
        goalId: start.goalId,
        metadata,
        ...(start.created ? { closeWith: records.map((r) => `${r.outcome.task}: ${r.outcome.status}`).join("; ") } : {}),
        now: now().toISOString(),
      });
      goals.set(finish.tree, { affectedGoals: finish.affectedGoals, addedGoals: [] });
      for (const record of records) {
        const entry = await ctx.store.appendEntry(ctx.sessionId, {
          type: "subagent_result",
          batchId,
          subSessionId: record.outcome.traceId,
          status: record.outcome.status,
          summary: record.outcome.summary,
          metadata: resultMetadata(record),
        });
        ctx.state = applyEntry(ctx.state, entry);
      }
      return { batchId, goalId: start.goalId, outcomes: records.map((r) => r.outcome) };
    },
  };
}

async function runBranch(
  ctx: RunContext,
  deps: SubTraceRunnerDeps,
  request: SubTraceRequest,
  task: string,
  traceId: string,
  goalId: string,
  context: TraceContext,
): Promise<BranchRecord> {
  const timeout = context.timeout === undefined ? undefined : AbortSignal.timeout(context.timeout * 1000);
  const signal = timeout ? AbortSignal.any([request.signal, timeout]) : request.signal;
  const recorder = branchRecorder(deps.now);
  const launch: TraceLaunch = {
    parentSessionId: ctx.sessionId,
    parentGoalId: goalId,
    agentType: request.mode,
    task,
    context,
    ...(request.mode === "explore" && !request.background
      ? { inheritFrom: { sessionId: ctx.sessionId, beforeEntryId: request.messageId } }
      : {}),
  };
  ctx.publish(
    { event: "sub_trace_started", parent_trace_id: ctx.sessionId, parent_goal_id: goalId, agent_type: request.mode, task },
    traceId,
  );
  const emit = (event: RunEventInput) => {
    recorder.see(event as RunEvent);
    // A branch's permission asks are answered where the parent's are (its run stream, the API).
    if (event.type === "permission_request") {
      ctx.emit({ ...event, metadata: { ...event.metadata, sub_trace_id: traceId } });
    }
  };
  const result = await deps.execute(
    {
      prompt: taskPrompt(request, task),
      agent: AGENT_FOR[request.mode],
      model: ctx.model.model,
      cwd: ctx.cwd,
      system: subTraceSystem(request.mode),
    },
    traceId,
    signal,
    emit,
    launch,
  );
  const status = statusOf(result, timeout?.aborted === true);
  const record = await recorder.finish(ctx.store, { traceId, task, status, result });
  const outcome: SubTraceOutcome = record.outcome;
  ctx.publish(
    {
      event: "sub_trace_completed",
      status,
      summary: outcome.summary,
      stats: {
        total_messages: record.metadata.stats.messageCount,
        total_tokens: record.metadata.stats.totalTokens,
        total_cost: record.metadata.stats.totalCost,
      },
    },
    traceId,
  );
  return record;
}
