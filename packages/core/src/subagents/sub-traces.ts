import { DEFAULT_DELEGATE_AGENT, delegateTargets, type SubAgentInfo } from "../agents/delegate-targets.js";
import { ArborError } from "../errors.js";
import { finishAgentCall, startAgentCall } from "../goal/agent-call.js";
import { createGoalTree, type SubTraceMetadata } from "../goal/goal-tree.js";
import { goalsKey } from "../goal/goals-key.js";
import { connectRemoteAgent, type RemoteAgentEnv } from "../llm/a2a/remote-agent.js";
import type { RunContext } from "../loop/run-context.js";
import { traceDepth } from "../model/ids.js";
import type { TraceContext } from "../model/session.js";
import { branchProgressTracker } from "./branch-progress.js";
import { batchOfCall } from "./branch-resume.js";
import type { SubAgentLauncher } from "./launcher.js";
import type { SubAgentMode, SubTraceRequest, SubTraceRunner } from "./sub-trace-runner.js";

/** Read-only tools (plus `goal`, so a branch can plan) and 20 turns: an explorer looks, it does not change. */
export const EXPLORE_CONTEXT: TraceContext = Object.freeze({
  allowedTools: ["read", "grep", "glob", "list", "goal"],
  maxTurns: 20,
}) as TraceContext;
/** Every tool and 50 turns: a delegate does the whole task it was handed. */
export const DELEGATE_CONTEXT: TraceContext = Object.freeze({ maxTurns: 50 }) as TraceContext;
/** Branches of one explore call running at once unless the trace's context says otherwise. */
export const DEFAULT_CONCURRENT_SUB_TRACES = 8;

const AGENT_FOR: Record<SubAgentMode, string> = { explore: "explore", delegate: DEFAULT_DELEGATE_AGENT };

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

/** The agent a sub-trace runs: the one asked for, if it may run as a sub-agent, else the mode's default. */
function subTraceAgent(request: SubTraceRequest, agents: Readonly<Record<string, SubAgentInfo>>): string {
  if (request.agent === undefined || request.agent === AGENT_FOR[request.mode]) return AGENT_FOR[request.mode];
  const usable = delegateTargets(Object.values(agents));
  if (request.mode !== "delegate" || !usable.some((a) => a.name === request.agent)) {
    throw new ArborError(
      "invalid_tool_input",
      `agent="${request.agent}" is not a sub-agent you can delegate to. Use one of: ${usable.map((a) => a.name).join(", ")}, ` +
        "or leave agent out for general.",
    );
  }
  return request.agent;
}

export interface SubTraceRunnerDeps {
  /** The runtime's agents, for a delegate that names one. */
  agents?: Readonly<Record<string, SubAgentInfo>>;
  /** Where a remote agent's token (`env:VARIABLE`) is read. */
  env?: RemoteAgentEnv;
  /** The runtime's overrides of the default contexts. */
  contexts?: { explore?: TraceContext; delegate?: TraceContext };
  now(): number;
}

/**
 * `explore` and `delegate` for one run: each task is a sub-agent started by the run's
 * launcher, run in parallel within the trace's concurrency budget. The calling goal becomes an
 * `agent_call` that closes when every branch has ended.
 */
export function createSubTraceRunner(ctx: RunContext, launcher: SubAgentLauncher, deps: SubTraceRunnerDeps): SubTraceRunner {
  const refusal = (): string | undefined => {
    const spent = ctx.traceSpend.spent();
    if (spent !== undefined) {
      return `No sub-agent was started: ${spent}. Finish with what you have and report what is left undone.`;
    }
    const depth = traceDepth(ctx.sessionId);
    const max = ctx.config.agent.maxSubAgentDepth;
    if (depth < max) return undefined;
    return (
      `No sub-agent was started: this agent is ${depth === 0 ? "not allowed to start sub-agents" : `a sub-agent ${depth} level${depth === 1 ? "" : "s"} deep`}, ` +
      `and sub-agents may nest at most ${max} deep (agent.maxSubAgentDepth). Do the task yourself with your own tools, ` +
      "or finish and report what is left so the agent that started you can hand it on."
    );
  };
  /** Open calls of a woken run whose batches `run` takes up (see `SubTraceRunner.resume`). */
  const resuming = new Set<string>();
  return {
    refusal,
    resume: (callId) => resuming.add(callId),
    async run(request) {
      const refused = refusal();
      if (refused !== undefined) throw new ArborError("invalid_input", refused);
      // Checked before anything is recorded, so a bad name leaves no trace.
      const agent = subTraceAgent(request, deps.agents ?? {});
      // A remote agent's sub-run talks to it over A2A; one that cannot be reached is refused here, unrecorded too.
      const remote = deps.agents?.[agent]?.a2a;
      const model = remote ? await connectRemoteAgent(agent, remote, deps.env ?? {}, request.signal) : ctx.model.model;
      const now = () => new Date(deps.now());
      const goals = ctx.values.get(goalsKey);
      if (!goals) throw new Error("sub-traces need the run's goal tree (the goal feature)");
      const recorded = resuming.delete(request.callId)
        ? batchOfCall(await ctx.store.getActivePath(ctx.sessionId), request.callId)
        : undefined;
      // Every batch written with a call id names its branches' sessions; one that does not is not taken up.
      const resumed = recorded?.tasks.every((t) => t.subSessionId !== undefined) ? recorded : undefined;
      const ids = resumed
        ? resumed.tasks.map((t) => t.subSessionId as string)
        : await launcher.ids(request.mode, request.tasks.length);
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
      // The caller's rules travel with the sub-trace, so it never has more rights than its caller (resumed too).
      const context = {
        ...(request.mode === "explore"
          ? { ...EXPLORE_CONTEXT, ...deps.contexts?.explore }
          : { ...DELEGATE_CONTEXT, ...deps.contexts?.delegate }),
        callerPermission: ctx.permission.rules(),
      };
      const inherit = request.mode === "explore" && !request.background;
      const progress =
        request.progress &&
        branchProgressTracker(
          request.tasks.map((task, i) => ({ task, traceId: ids[i] as string })),
          request.progress,
        );
      const { batchId, branches } = await launcher.run({
        mode: request.mode,
        goalId: start.goalId,
        callId: request.callId,
        ...(resumed ? { resume: { batchId: resumed.batchId } } : {}),
        ids,
        branches: request.tasks.map((task) => ({
          task,
          input: {
            prompt: taskPrompt(request, task),
            agent,
            model,
            cwd: ctx.cwd,
            ...(ctx.workspace === undefined ? {} : { workspace: ctx.workspace }),
            system: subTraceSystem(request.mode),
          },
          context,
          ...(inherit ? { inheritFrom: { sessionId: ctx.sessionId, beforeEntryId: request.messageId } } : {}),
        })),
        limit: ctx.budget.maxConcurrentSubTraces ?? DEFAULT_CONCURRENT_SUB_TRACES,
        signal: request.signal,
        ...(progress ? { forward: progress.see, branchEnded: progress.ended } : {}),
        finished(done) {
          const metadata: Record<string, SubTraceMetadata> = {};
          for (const { traceId, record } of done) metadata[traceId] = record.metadata;
          const finish = finishAgentCall(goals.get() ?? start.tree, {
            goalId: start.goalId,
            metadata,
            ...(start.created ? { closeWith: done.map((b) => `${b.record.outcome.task}: ${b.status}`).join("; ") } : {}),
            now: now().toISOString(),
          });
          goals.set(finish.tree, { affectedGoals: finish.affectedGoals, addedGoals: [] });
        },
      });
      return { batchId, goalId: start.goalId, outcomes: branches.map((b) => b.record.outcome) };
    },
  };
}
