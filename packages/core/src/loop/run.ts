import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { LanguageModelV4, LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import { ContextSize } from "../context/context-size.js";
import type { TokenCounter } from "../context/token-counter.js";
import { ArborError } from "../errors.js";
import { goalTreeOnPath } from "../goal/goal-path.js";
import { type PreparedReplay, prepareReplay, type ReplaySpec } from "../goal/replay.js";
import { appendRunMessage, flushGoalCompactions, runGoals } from "../goal/run-goals.js";
import { modelInfo } from "../llm/catalog.js";
import type { Entry } from "../model/entry.js";
import type { SessionMeta, TraceContext } from "../model/session.js";
import type { PlanGate } from "../plan/plan-gate.js";
import { type PlanExecution, planModeFor, planToolRules } from "../plan/plan-mode.js";
import { buildContext } from "../session/context.js";
import type { Store } from "../store/store.js";
import { agentPermissions } from "../tools/agents.js";
import { createPermissionAsk, type PermissionAsk } from "../tools/ask.js";
import { disabledTools, type PermissionConfig, type PermissionRule } from "../tools/permission.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { SubTraceRunner } from "../tools/run-services.js";
import { APPROVAL_ENTRY_TYPE, approvalsOnPath } from "./approvals.js";
import { contextPath, INHERIT_ENTRY_TYPE } from "./inherited-context.js";
import type { PendingPermissions } from "./pending-permissions.js";
import { PromptCache } from "./prompt.js";
import { type RunContext, type RunEventInput, ZERO_USAGE } from "./run-context.js";
import { CHARS_PER_TOKEN, checkPrompt, missionOf, promptText, remindersFor, userContent } from "./run-input.js";
import { errorOf, runSteps, type StepsOutcome } from "./steps.js";
import { generateTitle } from "./title.js";
import { runToolCalls } from "./tool-runner.js";
import type {
  AgentDefinition,
  LoopClock,
  ModelResolver,
  PermissionHandler,
  ResolvedModel,
  RetryOptions,
  RunInput,
  RunResult,
  TracePublisher,
} from "./types.js";

/** What a run borrows from its runtime. */
export interface RunDeps {
  store: Store;
  config: Config;
  models: () => ModelResolver;
  defaultModel: string | LanguageModelV4 | undefined;
  registry: ToolRegistry;
  agents: Readonly<Record<string, AgentDefinition>>;
  cwd: string;
  userRules: readonly PermissionRule[] | PermissionConfig | undefined;
  onPermission: PermissionHandler | undefined;
  pending: PendingPermissions;
  clock: LoopClock;
  retry: Required<RetryOptions>;
  /** The system prompt for a run (agent prompt, environment, instructions, custom text). */
  systemPrompt(input: {
    agent: AgentDefinition;
    model: ResolvedModel;
    cwd: string;
    system?: string;
    signal: AbortSignal;
  }): Promise<string>;
  maxTurnsNote: string;
  /** Local token counts, shared by the runtime's runs so the tokenizer loads once. */
  tokens: TokenCounter;
  watch: TracePublisher | undefined;
  /** Starts sub-traces for `explore` and `delegate` on behalf of a run. */
  subTraces(ctx: RunContext): SubTraceRunner;
  /** Runs waiting for a plan's approval, and who answers them. */
  plans: PlanGate;
}

/** A sub-trace's session, made by the run that starts it (SPEC 3). */
export interface TraceLaunch {
  parentSessionId: string;
  parentGoalId?: string;
  agentType: string;
  task: string;
  context: TraceContext;
  /** Start from the parent's context as it was before this entry (explore without `background`). */
  inheritFrom?: { sessionId: string; beforeEntryId: string };
}

export interface ExecuteOptions {
  trace?: TraceLaunch;
  /**
   * Continue the session from its leaf without a new user message; the prompt is ignored.
   */
  resume?: boolean;
  /** Branch before a past `goal` call, redo it with new arguments and continue (implies resume). */
  replay?: ReplaySpec;
  /** Plan mode beyond phase 1: an approval answered after its run ended, or a plan step's executor. */
  plan?: PlanExecution;
}

export function resolveModel(deps: RunDeps, agent: AgentDefinition, input: Pick<RunInput, "model">): ResolvedModel {
  const chosen = input.model ?? agent.model ?? deps.defaultModel ?? deps.config.model;
  if (chosen === undefined) {
    throw new ArborError(
      "invalid_model",
      'No model is configured: pass --model <provider>/<model>, set ARBOR_MODEL, or set "model" in arbor.json.',
    );
  }
  if (typeof chosen === "string") return deps.models().resolve(chosen);
  const ref = `${chosen.provider}/${chosen.modelId}`;
  return { ref, model: chosen, info: modelInfo(ref, deps.config.models) };
}

function resolveAgent(deps: RunDeps, name: string | undefined): AgentDefinition {
  const agentName = name ?? "build";
  const agent = deps.agents[agentName];
  if (!agent) {
    const names = Object.values(deps.agents)
      .filter((a) => !a.hidden && a.mode !== "subagent")
      .map((a) => a.name);
    throw new ArborError("invalid_input", `Unknown agent "${agentName}". Agents you can run: ${names.join(", ")}.`);
  }
  return agent;
}

async function resolveCwd(deps: RunDeps, input: RunInput): Promise<string> {
  const cwd = resolve(input.cwd ?? deps.cwd);
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw new ArborError("invalid_input", `The workspace ${cwd} is not a directory.`);
  return cwd;
}

function functionTools(
  deps: RunDeps,
  rules: readonly PermissionRule[],
): { tools: LanguageModelV4FunctionTool[]; names: string[] } {
  const all = deps.registry.names();
  const disabled = disabledTools(all, rules);
  const infos = deps.registry.list((name) => !disabled.has(name));
  return {
    tools: infos.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as never,
    })),
    names: infos.map((t) => t.name),
  };
}

/** Connects the pure rules to people: a pending ask with an event, answered by a handler or the API. */
function permissionFor(
  deps: RunDeps,
  sessionId: string,
  agent: AgentDefinition,
  rules: PermissionRule[],
  signal: AbortSignal,
  emit: (e: RunEventInput) => void,
): PermissionAsk {
  return createPermissionAsk({
    rules,
    agent: agent.name,
    prompt: async (request) => {
      const tool = typeof request.metadata?.tool === "string" ? request.metadata.tool : undefined;
      const callId = typeof request.metadata?.callId === "string" ? request.metadata.callId : undefined;
      const answer = await deps.pending.wait(
        { sessionId, agent: agent.name, request, ...(tool ? { tool } : {}), ...(callId ? { callId } : {}) },
        signal,
        (pending) => {
          emit({
            type: "permission_request",
            id: pending.id,
            permission: request.permission,
            patterns: request.patterns,
            ...(tool ? { tool } : {}),
            ...(callId ? { call_id: callId } : {}),
            ...(request.metadata ? { metadata: request.metadata } : {}),
          });
          if (!deps.onPermission) return;
          Promise.resolve()
            .then(() => deps.onPermission?.(pending, signal))
            .then(
              (reply) => {
                if (reply) deps.pending.reply(pending.id, reply);
              },
              () => deps.pending.reply(pending.id, "reject"),
            );
        },
      );
      if (answer.reply === "always") {
        for (const pattern of request.always ?? request.patterns) {
          await deps.store.appendEntry(sessionId, {
            type: "custom",
            customType: APPROVAL_ENTRY_TYPE,
            data: { agent: agent.name, permission: request.permission, pattern, scope: "session" },
          });
        }
      }
      if (answer.reply === "reject" && answer.message) {
        throw new ArborError(
          "permission_rejected",
          `The user rejected ${request.permission} for ${request.patterns.join(", ") || "this request"} and said: ${answer.message}`,
        );
      }
      return answer.reply;
    },
  });
}

/**
 * The model that writes summaries (SPEC 6: the compaction agent's own scenario): the pool's
 * `compaction` model, else `fallback` (the run's). A pool entry that cannot be resolved is an error
 * the user must see, not a silent fallback.
 */
export function summaryModel(deps: Pick<RunDeps, "models" | "agents">, fallback: ResolvedModel): ResolvedModel {
  const agentModel = deps.agents.compaction?.model;
  if (agentModel !== undefined) return deps.models().resolve(agentModel);
  return deps.models().forScenario("compaction") ?? fallback;
}

/** The pool's title model, if one is configured and usable; resolving it must never fail the run. */
function titleModel(deps: RunDeps): LanguageModelV4 | undefined {
  try {
    return deps.models().forScenario("title")?.model;
  } catch {
    return undefined;
  }
}

function traceStatus(status: RunResult["status"]): "completed" | "failed" | "aborted" {
  return status === "done" ? "completed" : status === "error" ? "failed" : "aborted";
}

/**
 * Marks the trace running or finished (with the title the run found, in the same write: each
 * session.json write is a rename, the largest cost of a short run); a failure to do so must not
 * change the run's outcome.
 */
async function markTrace(
  deps: RunDeps,
  sessionId: string,
  status: RunResult["status"] | "running",
  title?: string,
): Promise<void> {
  const patch =
    status === "running"
      ? { status }
      : {
          status: traceStatus(status),
          completedAt: new Date(deps.clock.now()).toISOString(),
          ...(title !== undefined ? { title } : {}),
        };
  await deps.store.updateSession(sessionId, patch).catch(() => undefined);
}

/**
 * One run from input to result: validate everything that can be validated before writing, then
 * create or open the session, append the user message and loop. Never throws.
 */
export async function executeRun(
  deps: RunDeps,
  input: RunInput,
  sessionId: string,
  signal: AbortSignal,
  emit: (e: RunEventInput) => void,
  options: ExecuteOptions = {},
): Promise<RunResult> {
  const result: RunResult = { sessionId, status: "error", text: "", steps: 0, usage: { ...ZERO_USAGE }, cost: 0 };
  let ctx: RunContext | undefined;
  let outcome: StepsOutcome;
  let started = false;
  let foundTitle: string | undefined;
  try {
    const resume = options.resume === true || options.replay !== undefined;
    const content = resume ? [] : userContent(input.prompt);
    if (!resume) checkPrompt(content);
    if (input.maxTurns !== undefined && (!Number.isInteger(input.maxTurns) || input.maxTurns < 1)) {
      throw new ArborError("invalid_input", `maxTurns must be a whole number of at least 1, got ${input.maxTurns}.`);
    }
    const agent = resolveAgent(deps, input.agent);
    const model = resolveModel(deps, agent, input);
    const cwd = await resolveCwd(deps, input);
    const promptTokens = Math.ceil(promptText(content).length / CHARS_PER_TOKEN);
    if (promptTokens > model.info.limit.context) {
      throw new ArborError(
        "invalid_input",
        `The prompt is about ${promptTokens.toLocaleString("en-US")} tokens; ${model.ref} takes at most ${model.info.limit.context.toLocaleString("en-US")}. Shorten it or put the material in a file for the agent to read.`,
      );
    }

    let path: Entry[] = [];
    let title: string | undefined;
    let meta: SessionMeta | undefined;
    if (input.sessionId !== undefined) {
      meta = await deps.store.getSession(sessionId);
      if (!meta)
        throw new ArborError("session_not_found", `No session ${sessionId} in this store; list them with arbor sessions list.`);
      title = meta.title;
      path = await deps.store.getActivePath(sessionId);
    }
    let replay: PreparedReplay | undefined;
    if (options.replay) {
      replay = await prepareReplay(deps.store, sessionId, options.replay);
    } else if (resume && path.length === 0) {
      throw new ArborError("invalid_input", `Session ${sessionId} has nothing to continue from.`);
    }
    const system = await deps.systemPrompt({ agent, model, cwd, ...(input.system ? { system: input.system } : {}), signal });
    if (signal.aborted) return { ...result, status: "aborted" };
    const launch = options.trace;
    if (input.sessionId === undefined) {
      meta = await deps.store.createSession({
        id: sessionId,
        cwd,
        agentId: agent.name,
        mode: "agent",
        agentType: launch?.agentType ?? "main",
        status: "running",
        ...(launch
          ? {
              title: launch.task.slice(0, 500),
              task: launch.task,
              parentSessionId: launch.parentSessionId,
              context: launch.context,
              ...(launch.parentGoalId !== undefined ? { parentGoalId: launch.parentGoalId } : {}),
            }
          : {}),
      });
      if (launch) title = launch.task;
      if (launch?.inheritFrom) {
        path = [
          await deps.store.appendEntry(sessionId, { type: "custom", customType: INHERIT_ENTRY_TYPE, data: launch.inheritFrom }),
        ];
      }
    }
    if (replay) {
      if (replay.branchFrom === null) await deps.store.resetLeaf(sessionId);
      else await deps.store.switchLeaf(sessionId, replay.branchFrom);
      path = await deps.store.getActivePath(sessionId);
    }
    started = true;
    // A new session was created running; a continued one is marked now.
    if (input.sessionId !== undefined) await markTrace(deps, sessionId, "running");
    const traceContext = meta?.context ?? {};

    const toolNames = deps.registry.names();
    const rules = [
      ...agentPermissions({
        agent,
        ...(deps.userRules ? { user: deps.userRules } : {}),
        trace: traceContext,
        toolNames,
      }),
      ...approvalsOnPath(path, agent.name),
      ...planToolRules(deps.config, options),
    ];
    const { tools, names } = functionTools(deps, rules);
    ctx = {
      sessionId,
      store: deps.store,
      config: deps.config,
      agent,
      model,
      cwd,
      signal,
      clock: deps.clock,
      retry: deps.retry,
      registry: deps.registry,
      tools,
      toolNames: names,
      permission: permissionFor(deps, sessionId, agent, rules, signal, emit),
      maxTurns: input.maxTurns ?? traceContext.maxTurns ?? agent.maxTurns ?? deps.config.agent.recursionLimit,
      prompts: new PromptCache(),
      system,
      state: buildContext(await contextPath(deps.store, path)),
      step: 0,
      usage: { ...ZERO_USAGE },
      cost: 0,
      lastText: "",
      history: [],
      tokens: deps.tokens,
      size: new ContextSize(),
      summaryModel: () => summaryModel(deps, model),
      compactions: 0,
      emit,
      goals: goalTreeOnPath(path),
      mission: missionOf(path, promptText(content)),
      goalCompactions: [],
      budget: {
        ...(traceContext.maxTokens !== undefined ? { maxTokens: traceContext.maxTokens } : {}),
        ...(traceContext.maxToolCalls !== undefined ? { maxToolCalls: traceContext.maxToolCalls } : {}),
        ...(traceContext.maxConcurrentSubTraces !== undefined
          ? { maxConcurrentSubTraces: traceContext.maxConcurrentSubTraces }
          : {}),
      },
      toolCalls: 0,
      publish: (event, traceId = sessionId) => {
        void deps.watch?.publish(traceId, event);
      },
    };
    const plan = planModeFor(ctx, deps, options, executeRun);
    ctx.services = { goals: runGoals(ctx), subTraces: deps.subTraces(ctx), ...(plan ? { plan: plan.services } : {}) };
    if (!resume) {
      await appendRunMessage(ctx, { role: "user", content: [...content, ...remindersFor(agent, path)] });
    }
    if (replay) await redoCall(ctx, replay);
    const naming = title === undefined && !resume ? generateTitle(titleModel(deps), promptText(content), signal) : undefined;
    const current = ctx;
    const phaseOne = () => runSteps(current, deps.maxTurnsNote);
    outcome = plan ? await plan.run(phaseOne) : await phaseOne();
    if (naming) foundTitle = await naming;
  } catch (err) {
    outcome = { status: signal.aborted ? "aborted" : "error", error: errorOf(err) };
  }
  const final: RunResult = {
    ...result,
    status: outcome.status,
    ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}),
    ...(outcome.status === "error" && outcome.error ? { error: outcome.error } : {}),
    ...(ctx ? { text: ctx.lastText, steps: ctx.step, usage: ctx.usage, cost: ctx.cost, compactions: ctx.compactions } : {}),
  };
  if (final.status === "aborted") final.error = { code: "aborted", message: "The run was aborted." };
  if (started) await markTrace(deps, sessionId, final.status, foundTitle);
  return final;
}

/** The edited call of a replay, written and run as its step would have been. */
async function redoCall(ctx: RunContext, replay: PreparedReplay): Promise<void> {
  const goalId = ctx.goals?.currentId ?? null;
  const entry = await appendRunMessage(ctx, replay.message, goalId);
  await runToolCalls(ctx, entry.id, [replay.call], "", goalId);
  await flushGoalCompactions(ctx);
}

export function newSessionId(): string {
  return randomUUID();
}
