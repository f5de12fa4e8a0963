import { randomUUID } from "node:crypto";
import type { ExecuteOptions, ExtensionFactory, TraceLaunch } from "../loop/extension.js";
import { appendEntry } from "../loop/journal.js";
import type { RunContext, RunEventInput } from "../loop/run-context.js";
import type { RunInput, RunResult } from "../loop/run-types.js";
import type { SubagentBatchEntry, SubagentResultEntry, SubagentStatus } from "../model/entry.js";
import type { RunEvent } from "../model/run-events.js";
import type { TraceContext } from "../model/session.js";
import { type PromptFiles, promptFilesOnce } from "../prompt/prompt-files.js";
import { branchStanding, recordedResults } from "./branch-resume.js";
import { type BranchRecord, branchRecorder, resultMetadata } from "./sub-trace-record.js";

/** Starts a sub-run the way the runtime starts every run (its own session and queue slot). */
export type SubRunExecutor = (
  input: RunInput,
  sessionId: string,
  signal: AbortSignal,
  emit: (event: RunEventInput) => void,
  options: ExecuteOptions,
) => Promise<RunResult>;

export interface LauncherDeps {
  execute: SubRunExecutor;
  /** The runtime's sub-trace id counter: `{parent}@{mode}-{time}-{seq}`. */
  nextId(parentId: string, mode: string, at: Date): string;
  now(): number;
}

/** One sub-agent of a batch: its task, the run it is given and the context it runs in. */
export interface BranchSpec {
  task: string;
  input: RunInput;
  context: TraceContext;
  /** Start from the parent's context as it was before this entry. */
  inheritFrom?: TraceLaunch["inheritFrom"];
}

/** Sub-agents started together by one call of the parent: explore's branches, a delegate, a plan step. */
export interface BatchSpec {
  /** The kind of sub-agent (`explore`, `delegate`, `plan_step`): the trace's agent type and the batch's mode. */
  mode: SubagentBatchEntry["mode"];
  /** The parent's goal that records the call, when there is one. */
  goalId?: string;
  /** The parent's tool call that starts the batch, recorded with it so a resumed parent finds it. */
  callId?: string;
  /**
   * Takes up this batch, recorded before the parent's process died, instead of starting one: a
   * branch whose result the parent recorded keeps it, one that ended unrecorded is read from its
   * session, one cut off continues from its journal (`wake`), one never started starts now.
   */
  resume?: { batchId: string };
  /** From `ids`, one per branch. */
  ids: readonly string[];
  branches: readonly BranchSpec[];
  /** Branches running at once. */
  limit: number;
  signal: AbortSignal;
  /** The extensions of the branches' runs, in place of the runtime's. */
  extensions?: ExtensionFactory;
  /** Shows a branch's event in the parent's stream (permission asks are always shown). */
  forward?(event: RunEventInput, traceId: string): void;
  /** One branch has ended, as soon as it has (the others may still run). */
  branchEnded?(traceId: string, status: SubagentStatus): void;
  /** Every branch has ended, before their results are written (the goal that records the call closes). */
  finished?(branches: readonly LaunchedBranch[]): void;
}

/** What the parent keeps of a finished branch. */
export interface LaunchedBranch {
  traceId: string;
  status: SubagentStatus;
  result: RunResult;
  record: BranchRecord;
}

/** The one status a sub-trace ends with, whoever started it. */
export function subagentStatus(result: RunResult, timedOut: boolean): SubagentStatus {
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
 * Starts sub-agents for one run: each branch is a sub-trace, a session of its own in the
 * same store linked to the parent. A batch is recorded in the parent as one `subagent_batch` entry
 * and one `subagent_result` per branch; watchers hear each branch start and end; a branch that
 * fails, times out or is aborted still reports what it has, with its status.
 */
export class SubAgentLauncher {
  constructor(
    private readonly ctx: RunContext,
    private readonly deps: LauncherDeps,
  ) {}

  /**
   * Fresh sub-trace ids under the parent. The counter makes them unique in this runtime; the store
   * is asked too, so a runtime started after a restart never reuses an id within the same second.
   */
  async ids(mode: SubagentBatchEntry["mode"], count: number): Promise<string[]> {
    const out: string[] = [];
    while (out.length < count) {
      const id = this.deps.nextId(this.ctx.sessionId, mode, new Date(this.deps.now()));
      if (!(await this.ctx.store.getSession(id))) out.push(id);
    }
    return out;
  }

  /** Records the batch, runs its branches and records each result; the branches in their order. */
  async run(batch: BatchSpec): Promise<{ batchId: string; branches: LaunchedBranch[] }> {
    const ctx = this.ctx;
    const batchId = batch.resume?.batchId ?? `batch_${randomUUID().slice(0, 8)}`;
    const recorded = batch.resume ? recordedResults(await ctx.store.getActivePath(ctx.sessionId), batchId) : new Map();
    if (!batch.resume) {
      await appendEntry(ctx, {
        type: "subagent_batch",
        batchId,
        mode: batch.mode,
        ...(batch.goalId !== undefined ? { goalId: batch.goalId } : {}),
        ...(batch.callId !== undefined ? { callId: batch.callId } : {}),
        tasks: batch.branches.map((b, i) => ({ task: b.task, subSessionId: batch.ids[i]! })),
      });
    }
    // The branches start together in the parent's workspace: its prompt files are read once for all of them.
    const files = promptFilesOnce();
    const branches = await pooled(
      batch.branches.map((branch, i) => () => this.branch(batch, branch, batch.ids[i]!, recorded.get(batch.ids[i]!), files)),
      batch.limit,
    );
    batch.finished?.(branches);
    for (const { traceId, status, record } of branches) {
      // A result the parent recorded before its process died is not recorded twice.
      if (recorded.has(traceId)) continue;
      await appendEntry(ctx, {
        type: "subagent_result",
        batchId,
        subSessionId: traceId,
        status,
        summary: record.outcome.summary,
        metadata: resultMetadata(record),
      });
    }
    return { batchId, branches };
  }

  /** Runs one branch, or takes it up when resuming (`recorded`: the result its parent had recorded). */
  private async branch(
    batch: BatchSpec,
    branch: BranchSpec,
    traceId: string,
    recorded: SubagentResultEntry | undefined,
    promptFiles: PromptFiles,
  ): Promise<LaunchedBranch> {
    const ctx = this.ctx;
    const standing = batch.resume ? await branchStanding(ctx.store, traceId) : ({ kind: "new" } as const);
    const timeout = branch.context.timeout === undefined ? undefined : AbortSignal.timeout(branch.context.timeout * 1000);
    const signal = timeout ? AbortSignal.any([batch.signal, timeout]) : batch.signal;
    const recorder = branchRecorder(this.deps.now);
    const launch: TraceLaunch = {
      parentSessionId: ctx.sessionId,
      ...(batch.goalId !== undefined ? { parentGoalId: batch.goalId } : {}),
      agentType: batch.mode,
      task: branch.task,
      context: branch.context,
      ...(branch.inheritFrom ? { inheritFrom: branch.inheritFrom } : {}),
    };
    // A branch that had ended is only recorded; one that runs (again) is announced to watchers: a new
    // one once its session exists, so the announcement also opens the sub-trace's own log (published
    // before, it reached only its ancestors'), and in any case before it is reported completed.
    let announced = standing.kind === "ended";
    const announce = () => {
      if (announced) return;
      announced = true;
      ctx.publish(
        {
          event: "sub_trace_started",
          parent_trace_id: ctx.sessionId,
          ...(batch.goalId !== undefined ? { parent_goal_id: batch.goalId } : {}),
          agent_type: batch.mode,
          task: branch.task,
        },
        traceId,
      );
    };
    if (standing.kind === "cut_off") announce();
    const emit = (event: RunEventInput) => {
      recorder.see(event as RunEvent);
      // A branch's permission asks are answered where the parent's are (its run stream, the API).
      if (event.type === "permission_request") ctx.emit({ ...event, metadata: { ...event.metadata, sub_trace_id: traceId } });
      else if (event.type === "question_request" || event.type === "elicitation_request" || event.type === "elicitation_answered")
        ctx.emit(event);
      else batch.forward?.(event, traceId);
    };
    const options = {
      trace: launch,
      traceSpend: ctx.traceSpend,
      promptFiles,
      ...(batch.extensions ? { extensions: batch.extensions } : {}),
    };
    const result =
      standing.kind === "ended"
        ? standing.result
        : standing.kind === "cut_off"
          ? // Its run goes on from its own journal, as the runtime wakes any cut-off run.
            await this.deps.execute({ ...branch.input, prompt: "", sessionId: traceId }, traceId, signal, emit, {
              ...options,
              wake: true,
            })
          : await this.deps.execute(branch.input, traceId, signal, emit, { ...options, onSessionCreated: announce });
    announce();
    const status = recorded?.status ?? subagentStatus(result, timeout?.aborted === true);
    const finished = await recorder.finish(ctx.store, { traceId, task: branch.task, status, result });
    // What the parent recorded stands: its summary is what the parent's model is told again.
    const record = recorded ? withSummary(finished, recorded.summary) : finished;
    batch.branchEnded?.(traceId, status);
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
    return { traceId, status, result, record };
  }
}

function withSummary(record: BranchRecord, summary: string): BranchRecord {
  return { ...record, outcome: { ...record.outcome, summary }, metadata: { ...record.metadata, summary } };
}
