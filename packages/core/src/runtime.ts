import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { agentsFromConfig } from "./agents/from-config.js";
import { BUILTIN_AGENTS } from "./agents/presets.js";
import { clientFunctionTools, withClientFunctions } from "./client-functions/client-function-tool.js";
import { arborHome as defaultArborHome } from "./config/load.js";
import { resolveConfig } from "./config/resolve.js";
import { TokenCounter } from "./context/token-counter.js";
import { ArborError } from "./errors.js";
import { RunEventLog } from "./events/run-event-log.js";
import { WatchHub } from "./events/watch-hub.js";
import { watchedGoalTree } from "./goal/goal-wire.js";
import type { ReplaySpec } from "./goal/replay.js";
import { runtimeCache } from "./llm/cache/runtime-cache.js";
import { composeWrappers, wrapModelOption, wrapResolver } from "./llm/model-wrapper.js";
import { createEmbedder, createModelRegistry } from "./llm/registry.js";
import { DEFAULT_RETRY } from "./llm/retry.js";
import type { RunLaunch } from "./loop/extension.js";
import { maxTurnsReminder } from "./loop/reminders.js";
import { type ExecuteOptions, executeRun, newSessionId, type RunDeps } from "./loop/run.js";
import type { RunEventInput } from "./loop/run-context.js";
import type { AgentDefinition, ModelResolver, RunHandle, RunInput, RunResult } from "./loop/types.js";
import { loginEventsTo } from "./mcp/elicitation-events.js";
import { middlewareFor, plumbRun } from "./middleware/run-middleware.js";
import { assertSessionId } from "./model/ids.js";
import type { RunEvent } from "./model/run-events.js";
import { mergeRules, type PermissionConfig, type PermissionRule, rulesFromConfig } from "./permissions/permission.js";
import { systemPromptFor } from "./prompt/system-prompt-source.js";
import { runtimeAccess } from "./runtime/access.js";
import { askMethods } from "./runtime/ask-methods.js";
import { continueFromEntry } from "./runtime/continue-from-entry.js";
import { runtimeDefaults } from "./runtime/defaults.js";
import { durableAsks } from "./runtime/durable-asks.js";
import { EventChannel } from "./runtime/event-channel.js";
import { type FeatureDeps, pythonReplExtension, runFeatures, userExtensions } from "./runtime/features.js";
import { mcpApi } from "./runtime/mcp-api.js";
import { resolveMcpInput } from "./runtime/mcp-input.js";
import { runtimeMcpManager } from "./runtime/mcp-manager.js";
import { memoryExtractExtension } from "./runtime/memory-extract.js";
import { queueRun } from "./runtime/queue-run.js";
import { realClock } from "./runtime/real-clock.js";
import { RunRecorder, startKind } from "./runtime/record-run.js";
import { admittedInput, runAdmission } from "./runtime/run-admission.js";
import { abortedBeforeStart, failedRun, finalEvent } from "./runtime/run-outcome.js";
import { sessionMethods } from "./runtime/session-methods.js";
import { sessionSlot } from "./runtime/session-slot.js";
import type { Runtime, RuntimeOptions } from "./runtime/types.js";
import { awaitEnding } from "./runtime/unended-run.js";
import { checkWakeable as checkWakeableIn } from "./runtime/wake-check.js";
import { sandboxFromConfig } from "./sandbox/from-config.js";
import { SecurityGateway, securityExtension, securityMiddleware } from "./security/gateway.js";
import { GitRunner } from "./snapshot/git-runner.js";
import { snapshotExtension } from "./snapshot/snapshot-extension.js";
import { KeyedLock } from "./store/keyed-lock.js";
import { type SessionLease, sessionBusy, withLease } from "./store/lease.js";
import { SubTraceIds } from "./subagents/sub-trace-ids.js";
import { FileBlobStore } from "./tools/blob-store.js";
import { coreTools } from "./tools/builtins.js";
import { PythonRepls } from "./tools/python/python-repls.js";
import { ToolRegistry } from "./tools/registry.js";

/**
 * The runtime: one store, one tool registry, the model resolver and the agents, and the
 * runs in flight. Everything a single run changes lives in its RunContext; what lives here is
 * shared on purpose (the per-session queue, pending asks).
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  const config = options.config ?? resolveConfig([]);
  const env = options.env ?? process.env;
  const home = options.arborHome ?? defaultArborHome(env);
  const blobs = options.blobs ?? new FileBlobStore(join(home, "blobs"));
  // Every process a tool starts (bash, python_repl, stdio MCP servers) goes through it.
  // Tools have always taken their environment from the process, not from `env` (the config's source).
  const sandbox = options.sandbox ?? sandboxFromConfig(config, home, process.env);
  const python = new PythonRepls({ sandbox });
  // Its child process starts with the first snapshot, so a runtime without snapshots never has one.
  const gitRunner = options.snapshots ? new GitRunner() : undefined;
  const registry =
    options.tools instanceof ToolRegistry
      ? options.tools
      : new ToolRegistry({ blobs }).register(
          ...(options.tools ??
            coreTools({
              blobs,
              arborHome: home,
              python,
              sandbox,
              embedder: createEmbedder({ config, env }),
              now: () => (options.clock ?? realClock).now(),
            })),
        );
  const extensions = userExtensions(options.extensions, registry);
  // The gateway checks every call of every run (sub-runs too), so it sits on the registry itself.
  const gateway = config.security.enabled ? new SecurityGateway(config.security) : undefined;
  const removeGateway = gateway ? registry.addHook(gateway) : undefined;
  let models: ModelResolver | undefined;
  // Config agents replace built-in ones of the same name; agents passed in code replace both.
  const agents: Record<string, AgentDefinition> = { ...BUILTIN_AGENTS, ...agentsFromConfig(config.agents), ...options.agents };
  const queue = new KeyedLock();
  const running = new Set<{ sessionId: () => string; controller: AbortController; done: Promise<RunResult> }>();
  const watchHub = options.watch instanceof WatchHub ? options.watch : new WatchHub(options.store);
  watchHub.provideGoalTree(watchedGoalTree(options.store));
  const events = new RunEventLog(options.store, { unended: (id) => awaitEnding(options.store, id), ...options.runEvents });
  // A watch event a run publishes follows the run events it emitted before it in the log, though those are logged a turn later.
  const unorder = watchHub.orderAfter((traceId) => events.logged(traceId));
  // Runs publish to the caller's publisher when given one, else to the runtime's own hub.
  const publisher = options.watch ?? watchHub;
  const recorder = new RunRecorder({ events, publisher, store: options.store });
  const clock = options.clock ?? realClock;
  const { pending, elicitations, plans, questions, clientFunctions, mcpLogins } = durableAsks(options, () => clock.now());
  const now = () => clock.now();
  const mcpServers = runtimeMcpManager({ config, options, home, blobs, sandbox, now, elicitations, mcpLogins });
  const mcp = mcpServers.get;
  // The LLM cache and any caller's wrapper apply wherever a model is resolved, never inside the loop.
  const { cache, owned: ownsCache } = runtimeCache(options.cache, config, home);
  const wrap = composeWrappers([
    cache && ((model, use) => cache.wrap(model, use.ref)),
    options.wrapModel,
    options.telemetry?.wrapModel,
  ]);
  const subTraceIds = new SubTraceIds();
  // One driver per session across processes: a run holds its session's lease from start to end, and
  // stops (as aborted) if it loses it.
  const holderName = options.holderName ?? "arbor";
  // A run admitted by `runs.start` comes with the lease taken already; it is released the same way.
  const leased = <T>(
    sessionId: string,
    signal: AbortSignal,
    work: (signal: AbortSignal) => Promise<T>,
    taken?: SessionLease,
    request?: string,
  ): Promise<T> => {
    const held = (lease: SessionLease) => work(AbortSignal.any([signal, lease.lost]));
    if (!taken) return withLease(options.store, sessionId, holderName, held, request === undefined ? undefined : { request });
    return held(taken).finally(() => taken.release());
  };
  const slot = sessionSlot({ store: options.store, queue, holderName, defaultBusy: options.busy ?? "queue" });

  const deps: RunDeps = {
    store: options.store,
    config,
    models: () => {
      const resolver = options.models ?? createModelRegistry({ config, env });
      models ??= wrap ? wrapResolver(resolver, wrap) : resolver;
      return models;
    },
    defaultModel: wrap ? wrapModelOption(options.model, wrap) : options.model,
    registry,
    agents,
    cwd: options.cwd ?? process.cwd(),
    arborHome: home,
    // The config's rules first, so rules passed in code have the last word.
    userRules: mergeRules(
      rulesFromConfig(config.permission),
      Array.isArray(options.permission)
        ? (options.permission as readonly PermissionRule[])
        : rulesFromConfig((options.permission ?? {}) as PermissionConfig),
    ),
    onPermission: options.onPermission,
    pending,
    clock,
    retry: { ...DEFAULT_RETRY, streamIdleTimeoutMs: config.llm.streamIdleTimeoutMs, ...options.retry },
    onRetry: options.onRetry,
    systemPrompt: (input) => systemPromptFor({ ...input, config, arborHome: home, date: new Date(clock.now()) }),
    maxTurnsNote: maxTurnsReminder(),
    tokens: new TokenCounter(),
    watch: publisher,
    extensions: (launch) => features(launch),
  };
  const featureDeps: FeatureDeps = {
    deps: () => deps,
    featureTools: options.tools === undefined,
    gate: plans,
    questions,
    env,
    clientFunctions,
    launcher: {
      // A sub-run is a run like any other (its own session, queue slot, lease and result), started by a tool.
      execute: (input, sessionId, signal, emit, execution) =>
        queue.run(sessionId, () => leased(sessionId, signal, (s) => executeRun(deps, input, sessionId, s, emit, execution))),
      nextId: (parentId, mode, at) => subTraceIds.next(parentId, mode, at),
      now: () => clock.now(),
    },
    ...(options.subAgents ? { contexts: options.subAgents } : {}),
    user: extensions,
    ...(gateway ? { security: securityExtension(gateway) } : {}),
    python: pythonReplExtension(python),
    memory: (launch: RunLaunch) => memoryExtractExtension(launch, home),
    ...(options.telemetry ? { observer: (launch: RunLaunch) => options.telemetry!.extension(launch) } : {}),
    ...(options.snapshots ? { snapshots: snapshotExtension(home, gitRunner) } : {}),
  };
  const features = runFeatures(featureDeps);

  const checkWakeable = (sessionId: string, leased: boolean) => checkWakeableIn(options.store, sessionId, leased);

  function run(input: RunInput, execution: ExecuteOptions & { lease?: SessionLease; takeUp?: true } = {}): RunHandle {
    const channel = new EventChannel<RunEvent>();
    const recording = recorder.open(startKind(execution));
    const controller = new AbortController();
    const signal = input.signal ? AbortSignal.any([input.signal, controller.signal]) : controller.signal;
    let sessionId = input.sessionId ?? input.newSessionId ?? newSessionId();
    // Events pass through the run's middleware on their way into the stream.
    const plumbing = plumbRun({
      deps,
      input,
      runId: randomUUID(),
      signal,
      sessionId: () => sessionId,
      push: (event) => {
        channel.push(event);
        recording.push(event);
      },
      middleware: middlewareFor({
        cached: cache !== undefined,
        debug: input.debug ?? options.debug,
        runtime: gateway ? [securityMiddleware(gateway, registry), ...(options.middleware ?? [])] : options.middleware,
        run: input.middleware,
      }),
      onError: options.onMiddlewareError ?? (() => {}),
      wrap,
    });
    const emit = (event: RunEventInput) => plumbing.emit(event);

    const execute = async (): Promise<RunResult> => {
      if (input.sessionId !== undefined) {
        try {
          assertSessionId(input.sessionId);
        } catch (err) {
          sessionId = String(input.sessionId);
          throw err;
        }
        if (input.fromEntryId !== undefined) assertSessionId(input.fromEntryId);
        if ((input.busy ?? options.busy) === "reject" && queue.busy(sessionId)) {
          throw new ArborError("session_busy", `Session ${sessionId} is already running; wait for it to finish or abort it.`);
        }
      } else if (input.fromEntryId !== undefined) {
        throw new ArborError("invalid_input", "fromEntryId needs sessionId: the entry is looked up in that session.");
      }
      // A run taking up a call of the client's functions after a stop finds the session ended, not cut off.
      const wakeCheck = execution.wake && !execution.takeUp;
      if (execution.wake) {
        if (queue.busy(sessionId)) throw sessionBusy(sessionId, undefined);
        if (wakeCheck) await checkWakeable(sessionId, false);
      }
      // A woken run offers again the client's functions its cut-off run had: their calls wait on the same asks.
      const woken = execution.wake ? await withClientFunctions(plumbing.input, clientFunctions, sessionId) : plumbing.input;
      const fromEntryId = input.fromEntryId;
      return queue.run(sessionId, () =>
        signal.aborted
          ? Promise.resolve(abortedBeforeStart(sessionId))
          : leased(
              sessionId,
              signal,
              async (s) => {
                if (wakeCheck) await checkWakeable(sessionId, true);
                // Holding the session, so what its servers ask (a login) is logged and shown as the run's.
                recording.admitted();
                if (mcp) await (await mcp()).sync(registry, s, sessionId, loginEventsTo(emit));
                // Attached resources and an MCP prompt become the user message's content before anything is recorded.
                const runInput = await resolveMcpInput(woken, mcp, s);
                // Moved inside the session's slot and lease, so no other run lands between the move and this run.
                if (fromEntryId !== undefined) await continueFromEntry(options.store, sessionId, fromEntryId);
                const extensions = execution.extensions ?? plumbing.deps.extensions;
                const result = await executeRun(plumbing.deps, runInput, sessionId, s, emit, {
                  ...execution,
                  extensions: (launch) => [recording.extension, ...extensions(launch)],
                });
                // A run faster than its log (a model that answers at once) gets it written before giving the session up.
                await recording.logged(sessionId);
                return result;
              },
              execution.lease,
              input.requestKey,
            ),
      );
    };

    const done = execute()
      .catch((err): RunResult => failedRun(sessionId, err))
      .then(async (result) => {
        emit(finalEvent(result));
        await plumbing.end(result);
        channel.close();
        recording.end(result);
        running.delete(entry);
        return result;
      });
    const entry = { sessionId: () => sessionId, controller, done };
    running.add(entry);
    const handle: RunHandle = {
      get sessionId() {
        return sessionId;
      },
      result: done,
      abort: (reason?: unknown) => controller.abort(reason),
      [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
    };
    recording.record(handle);
    return handle;
  }

  // A replayed run (the only one that needs replay's module) loads it when it starts.
  const replayRun = (sessionId: string, spec: ReplaySpec, opts: Omit<RunInput, "sessionId" | "prompt">, lease?: SessionLease) =>
    run(
      { ...opts, sessionId, prompt: "" },
      {
        replay: async (store, id) => (await import("./goal/replay.js")).prepareReplay(store, id, spec),
        ...(lease ? { lease } : {}),
      },
    );
  const access = runtimeAccess(options.store, deps.cwd, config.auth?.jwt);
  const sessions = sessionMethods({
    store: options.store,
    slot,
    runDeps: () => deps,
    home,
    events,
    access,
    blobs,
    ...(cache ? { clearCache: () => cache.clear() } : {}),
  });
  const admission = runAdmission({
    store: options.store,
    slot,
    holderName,
    steer: sessions.steer,
    drivenHere: (sessionId) => queue.busy(sessionId),
    access,
    launch: (input, lease) =>
      input.replay !== undefined && input.sessionId !== undefined
        ? replayRun(input.sessionId, input.replay, admittedInput(input), lease)
        : run(admittedInput(input), lease ? { lease } : {}),
  });

  return {
    runs: {
      run: (input) => run(input),
      ...admission,
      queue: (input, enqueue) => queueRun(options.store, input, enqueue),
      resume: (sessionId, opts = {}) => run({ ...opts, sessionId, prompt: "" }, { wake: true }),
      replay: (sessionId, spec, opts = {}) => replayRun(sessionId, spec, opts),
      busy: slot.busy,
      abort(sessionId, reason) {
        const mine = [...running].filter((r) => r.sessionId() === sessionId && !r.controller.signal.aborted);
        for (const r of mine) r.controller.abort(reason ?? new ArborError("aborted", "The run was aborted."));
        return mine.length > 0;
      },
    },
    sessions,
    asks: askMethods({
      store: options.store,
      slot,
      pending,
      plans,
      elicitations,
      mcpLogins,
      questions,
      defaultBusy: options.busy ?? "queue",
      clientFunctions,
      takeUpCall: (sessionId, fromEntryId, functions) =>
        run(
          { sessionId, prompt: "", tools: clientFunctionTools(functions), ...(fromEntryId === undefined ? {} : { fromEntryId }) },
          { wake: true, takeUp: true },
        ),
      resumePlan: (sessionId, approval) =>
        run({ sessionId, prompt: "" }, { resume: true, extensions: runFeatures(featureDeps, { approval }) }),
      cwd: deps.cwd,
      home,
      access,
      now: () => clock.now(),
    }),
    access,
    cache,
    store: options.store,
    watch: watchHub,
    events,
    defaults: () => runtimeDefaults(deps.defaultModel ?? config.model, agents),
    mcpServers: async (signal) => (mcp ? (await mcp()).status(signal) : []),
    mcp: mcpApi(mcp, mcpLogins),
    async close() {
      const all = [...running];
      for (const r of all) r.controller.abort(new ArborError("aborted", "The runtime was closed."));
      await Promise.all(all.map((r) => r.done));
      // A recorded stream's last events (the aborts above) and its runs' watch events reach the event
      // log before the caller closes the store.
      await events.settled();
      await recorder.settled();
      await watchHub.flush();
      unorder();
      if (ownsCache) await cache?.close();
      await mcpServers.close();
      // A registry the caller passed in outlives this runtime: it keeps no hook of ours.
      removeGateway?.();
      python.closeAll();
      await gitRunner?.close();
    },
  };
}
