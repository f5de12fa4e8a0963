import { randomUUID } from "node:crypto";
import { sessionAgent } from "../agents/mode-switch.js";
import { agentPermissions } from "../agents/presets.js";
import { ContextSize } from "../context/context-size.js";
import { ArborError } from "../errors.js";
import { scenarioModel, scenarioRetry } from "../llm/scenario.js";
import type { Entry } from "../model/entry.js";
import type { SessionMeta } from "../model/session.js";
import { buildContext } from "../session/context.js";
import { RunValues } from "../tools/run-values.js";
import type { ExecuteOptions, PreparedReplay, RunExtension } from "./extension.js";
import { contextPath, INHERIT_ENTRY_TYPE, type InheritRef, inheritedPath } from "./inherited-context.js";
import { appendCustom, appendEntry, appendMessage } from "./journal.js";
import { PromptCache, takesToolFiles } from "./prompt.js";
import { recordApproval, runApprovals } from "./run-approvals.js";
import { type RunContext, type RunEventInput, ZERO_USAGE } from "./run-context.js";
import { type RunDeps, summaryModel } from "./run-deps.js";
import {
  CHARS_PER_TOKEN,
  checkPrompt,
  checkThinking,
  missionOf,
  promptText,
  remindersFor,
  resolveAgent,
  resolveCwd,
  resolveModel,
  sessionModel,
  userContent,
} from "./run-input.js";
import { functionTools, permissionFor } from "./run-permission.js";
import type { StepsOutcome } from "./run-types.js";
import { asStep, errorOf, runSteps } from "./steps.js";
import { EMPTY_TALLY } from "./tally.js";
import { generateTitle, titleFromPrompt } from "./title.js";
import { runToolCalls } from "./tool-runner.js";
import { markTrace } from "./trace-mark.js";
import { TraceSpend } from "./trace-spend.js";
import type { RetryNotice, RunInput, RunResult } from "./types.js";
import { wakeRun } from "./wake.js";

export type { ExecuteOptions, TraceLaunch } from "./extension.js";
export type { RunDeps } from "./run-deps.js";

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
    const resume = options.resume === true || options.wake === true || options.replay !== undefined;
    const content = resume ? [] : userContent(input.prompt);
    if (!resume) checkPrompt(content);
    if (input.maxTurns !== undefined && (!Number.isInteger(input.maxTurns) || input.maxTurns < 1)) {
      throw new ArborError("invalid_input", `maxTurns must be a whole number of at least 1, got ${input.maxTurns}.`);
    }
    for (const tool of input.tools ?? []) {
      if (deps.registry.get(tool.name)) {
        throw new ArborError("invalid_input", `A tool named ${tool.name} is one of the runtime's own; give yours another name.`);
      }
    }
    let agent = resolveAgent(deps, input.agent, { subTrace: options.trace !== undefined });
    if (input.thinking !== undefined) checkThinking(input.thinking);
    let path: Entry[] = [];
    let title: string | undefined;
    let meta: SessionMeta | undefined;
    let inherit: InheritRef | undefined;
    if (input.sessionId !== undefined) {
      meta = await deps.store.getSession(sessionId);
      if (!meta)
        throw new ArborError("session_not_found", `No session ${sessionId} in this store; list them with arbor sessions list.`);
      title = meta.title;
      // A continued run reads only the live path (what the latest compaction left, and what it carried);
      // a woken run folds its spending from the whole journal.
      path = options.wake ? await deps.store.getActivePath(sessionId) : (await deps.store.getLivePath(sessionId)).entries;
      // A woken run goes on as the agent that was running it; a continued one as the agent the session
      // last switched to (plan_enter, plan_exit), unless the run names one.
      const was = options.wake && input.agent === undefined ? deps.agents[meta.agentId ?? ""] : undefined;
      const switched = !options.wake && input.agent === undefined && !options.trace ? sessionAgent(path) : undefined;
      if (was) agent = was;
      else if (switched !== undefined) agent = resolveAgent(deps, switched);
    }
    // A continued session keeps the model it last used unless this run names one.
    const model = resolveModel(deps, agent, input, path);
    const cwd = await resolveCwd(deps, input);
    const promptTokens = Math.ceil(promptText(content).length / CHARS_PER_TOKEN);
    if (promptTokens > model.info.limit.context) {
      throw new ArborError(
        "invalid_input",
        `The prompt is about ${promptTokens.toLocaleString("en-US")} tokens; ${model.ref} takes at most ${model.info.limit.context.toLocaleString("en-US")}. Shorten it or put the material in a file for the agent to read.`,
      );
    }
    let replay: PreparedReplay | undefined;
    if (options.replay) {
      replay = await options.replay(deps.store, sessionId);
    } else if (resume && path.length === 0) {
      if (options.wake) {
        // Its process died between creating the session and recording the prompt: there is nothing to
        // answer, and a session left interrupted would be woken again and again, so it ends as an error.
        started = true;
        throw new ArborError(
          "invalid_input",
          `Session ${sessionId} has nothing to continue from: its run stopped before its prompt was recorded. Send the prompt again.`,
        );
      }
      throw new ArborError("invalid_input", `Session ${sessionId} has nothing to continue from.`);
    }
    const system = await deps.systemPrompt({
      agent,
      model,
      cwd,
      ...(input.system ? { system: input.system } : {}),
      signal,
      files: options.promptFiles,
    });
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
        ...(input.principal === undefined ? {} : { createdBy: input.principal.id }),
        ...(launch
          ? {
              title: launch.task.slice(0, 500),
              task: launch.task,
              parentSessionId: launch.parentSessionId,
              context: launch.context,
              ...(launch.parentGoalId !== undefined ? { parentGoalId: launch.parentGoalId } : {}),
            }
          : {
              // The prompt's first line until the run writes the title it found: a run that dies
              // first (kill -9, a crash) must not leave an untitled session in the list.
              title: titleFromPrompt(promptText(content)),
            }),
      });
      if (launch) title = launch.task;
      // Written as the run's first entry once its journal exists.
      inherit = launch?.inheritFrom;
      options.onSessionCreated?.();
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

    const extensions = (options.extensions ?? deps.extensions)({
      sessionId,
      options,
      path,
      mission: missionOf(path, promptText(content)),
      models: deps.models,
    });
    // The runtime's tools, then those the run's extensions offer: a feature brings its own.
    const registry = deps.registry.withTools([...extensions.flatMap((ext) => ext.tools ?? []), ...(input.tools ?? [])]);
    const toolNames = registry.names();
    const rules = [
      ...agentPermissions({
        agent,
        ...(deps.userRules ? { user: deps.userRules } : {}),
        trace: traceContext,
        toolNames,
      }),
      ...extensions.flatMap((ext) => ext.rules ?? []),
    ];
    const { tools, names } = functionTools(registry, deps.agents, rules);
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
      ...(deps.onRetry ? { onRetry: (notice: RetryNotice) => deps.onRetry?.({ ...notice, sessionId }) } : {}),
      registry,
      tools,
      toolNames: names,
      permission: permissionFor(
        deps,
        sessionId,
        agent,
        rules,
        runApprovals(path, agent.name, cwd, deps.arborHome),
        signal,
        emit,
        (approval) =>
          recordApproval(() => current, { workspace: cwd, home: deps.arborHome }, approval, new Date(deps.clock.now())),
      ),
      maxTurns: input.maxTurns ?? traceContext.maxTurns ?? agent.maxTurns ?? deps.config.agent.recursionLimit,
      prompts: new PromptCache(takesToolFiles(model.model.provider)),
      system,
      state: buildContext(inherit ? await inheritedPath(deps.store, inherit) : await contextPath(deps.store, path)),
      tally: EMPTY_TALLY,
      history: [],
      tokens: deps.tokens,
      size: new ContextSize(),
      summaryModel: () => summaryModel(deps, model),
      emit,
      extensions,
      values: new RunValues(),
      budget: {
        ...(traceContext.maxTokens !== undefined ? { maxTokens: traceContext.maxTokens } : {}),
        ...(traceContext.maxToolCalls !== undefined ? { maxToolCalls: traceContext.maxToolCalls } : {}),
        ...(traceContext.maxConcurrentSubTraces !== undefined
          ? { maxConcurrentSubTraces: traceContext.maxConcurrentSubTraces }
          : {}),
      },
      traceSpend:
        options.traceSpend ??
        new TraceSpend({
          ...optional("maxTokens", input.traceBudget?.maxTokens ?? deps.config.agent.maxTraceTokens),
          ...optional("maxCost", input.traceBudget?.maxCost ?? deps.config.agent.maxTraceCost),
        }),
      toolCalls: 0,
      ...(input.extra !== undefined ? { extra: input.extra } : {}),
      ...(input.workspace !== undefined ? { workspace: input.workspace } : {}),
      publish: (event, traceId = sessionId) => {
        void deps.watch?.publish(traceId, event);
      },
    };
    const current: RunContext = ctx;
    if (inherit) path = [await appendCustom(current, INHERIT_ENTRY_TYPE, inherit)];
    // What this run changed is recorded before its first message, so the session keeps it.
    if (typeof input.model === "string" && path.length > 0 && sessionModel(path) !== model.ref) {
      await appendEntry(current, { type: "model_change", model: model.ref });
    }
    if (input.thinking !== undefined && input.thinking !== current.state.thinkingLevel) {
      await appendEntry(current, { type: "thinking_level_change", thinkingLevel: input.thinking });
    }
    for (const ext of extensions) ext.start?.(current);
    // A woken run reads back what it had spent and settles the calls its process left open.
    const woken = options.wake ? await wakeRun(current, path) : undefined;
    if (!resume) {
      await appendMessage(current, {
        role: "user",
        content: [...content, ...remindersFor(agent, path)],
        ...(input.requestKey === undefined ? {} : { requestKey: input.requestKey }),
        ...(input.principal === undefined ? {} : { sentBy: input.principal.id }),
      });
    }
    if (replay) await redoCall(current, replay);
    const naming =
      title === undefined && !resume
        ? generateTitle(
            { clock: deps.clock, retry: scenarioRetry("title", deps.retry), signal },
            scenarioModel(deps.models, "title", model)?.model,
            promptText(content),
          )
        : undefined;
    outcome = woken ?? (await aroundLoop(current, extensions, () => runSteps(current, deps.maxTurnsNote)));
    if (naming) foundTitle = await naming;
  } catch (err) {
    outcome = { status: signal.aborted ? "aborted" : "error", error: errorOf(err) };
  }
  const final: RunResult = {
    ...result,
    status: outcome.status,
    ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}),
    ...(outcome.stopMessage ? { stopMessage: outcome.stopMessage } : {}),
    ...(outcome.status === "error" && outcome.error ? { error: outcome.error } : {}),
    ...(ctx
      ? {
          text: ctx.tally.lastText,
          steps: ctx.tally.steps,
          usage: { ...ctx.tally.usage },
          cost: ctx.tally.cost,
          compactions: ctx.tally.compactions,
        }
      : {}),
    ...(ctx && !ctx.tally.costKnown ? { costKnown: false } : {}),
  };
  if (final.status === "aborted") final.error = abortError(signal.reason);
  if (started) await markTrace(deps, sessionId, final.status, foundTitle);
  return final;
}

/**
 * Why an aborted run stopped: a lost lease (another driver took the session) says so, so whoever
 * started the run for a queued request gives the request back to the queue; any other abort was asked.
 */
function abortError(reason: unknown): { code: string; message: string } {
  if (reason instanceof ArborError && reason.code === "session_busy") return { code: reason.code, message: reason.message };
  return { code: "aborted", message: "The run was aborted." };
}

/** The edited call of a replay, written and run as its step would have been. */
async function redoCall(ctx: RunContext, replay: PreparedReplay): Promise<void> {
  await asStep(ctx, async () => {
    const entry = await appendMessage(ctx, replay.message);
    await runToolCalls(ctx, entry.id, [replay.call], "");
  });
}

/** The loop inside every extension's `around`, the first extension outermost. */
function aroundLoop(
  ctx: RunContext,
  extensions: readonly RunExtension[],
  loop: () => Promise<StepsOutcome>,
): Promise<StepsOutcome> {
  let run = loop;
  for (let i = extensions.length - 1; i >= 0; i--) {
    const around = extensions[i]!.around?.bind(extensions[i]);
    if (!around) continue;
    const inner = run;
    run = () => around(ctx, inner);
  }
  return run();
}

export function newSessionId(): string {
  return randomUUID();
}

function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}
