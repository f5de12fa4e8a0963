import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import type { DebugLevel } from "../events/debug-records.js";
import type { RunEventLog, RunEventLogOptions } from "../events/run-event-log.js";
import type { WatchHub } from "../events/watch-hub.js";
import type { ReplaySpec } from "../goal/replay.js";
import type { LlmCache } from "../llm/cache/llm-cache.js";
import type { ModelWrapper } from "../llm/model-wrapper.js";
import type { ModelResolver } from "../llm/resolved-model.js";
import type { RunObserver } from "../loop/extension.js";
import type { RunExtension } from "../loop/run-context.js";
import type { MiddlewareErrorHandler, RunHandle, RunInput, RunMiddleware } from "../loop/run-types.js";
import type {
  AgentDefinition,
  LoopClock,
  PendingPermission,
  PermissionHandler,
  RetryNotice,
  RetryOptions,
  TracePublisher,
} from "../loop/types.js";
import type { McpServerStatus } from "../mcp/manager.js";
import type { BranchSummaryEntry } from "../model/entry.js";
import type { TokenUsage } from "../model/message.js";
import type { TraceContext } from "../model/session.js";
import type { Approval, ApprovalScope, ListedApproval } from "../permissions/approvals.js";
import type { PermissionReply } from "../permissions/ask.js";
import type { PermissionConfig, PermissionRule } from "../permissions/permission.js";
import type { PlanApprovalResult } from "../plan/approve.js";
import type { PlanApprovalHandler, PlanApprovalRequest } from "../plan/plan-gate.js";
import type { RevertResult, UnrevertResult } from "../snapshot/revert.js";
import type { SteerResult } from "../steering/steering.js";
import type { SessionDriver } from "../store/lease.js";
import type { Store } from "../store/store.js";
import type { BlobStore } from "../tools/blob-store.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/tool.js";

export type { SessionDriver, SteerResult };

export interface RuntimeOptions {
  store: Store;
  /**
   * Where every run publishes its trace watch events (start, messages, goals, sub-traces, end);
   * default the runtime's own hub over the store (`runtime.watch`).
   */
  watch?: TracePublisher;
  /** Resolved settings; defaults to the built-in defaults (no files, no environment). */
  config?: Config;
  /** The default model: a `provider/model` string resolved by `models`, or an AI SDK model instance. */
  model?: string | LanguageModelV4;
  /** Resolves model strings; defaults to a registry over `config` and `env`. */
  models?: ModelResolver;
  /**
   * The tools offered to agents, exactly; by default the core ones (workspace, shell, web, memory,
   * skills) and, offered by the features' own extensions, `goal`, the plan tools, `explore`,
   * `delegate` and the todo tools. `builtinTools()` lists them all for a caller who builds on them.
   */
  tools?: ToolRegistry | AnyToolDefinition[];
  /** Extra agents, or replacements for built-in ones, by name. */
  agents?: Record<string, AgentDefinition>;
  /** The workspace tools act on (default `process.cwd()`). */
  cwd?: string;
  /** `$ARBOR_HOME`, for user-level skills and instructions. */
  arborHome?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Where cut tool outputs are kept in full; default a FileBlobStore under `arborHome`. */
  blobs?: BlobStore;
  /** User permission rules, merged after the agent's so the user has the last word. */
  permission?: readonly PermissionRule[] | PermissionConfig;
  onPermission?: PermissionHandler;
  /** Answers plan approvals (PLAN_REQUIRE_APPROVAL) when someone is at hand; undefined leaves them to `approvePlan`. */
  onPlanApproval?: PlanApprovalHandler;
  retry?: RetryOptions;
  /** Told of each retry of a run's model calls as its wait begins (the CLI prints it); never fails the run. */
  onRetry?: (notice: RetryNotice & { sessionId: string }) => void;
  clock?: LoopClock;
  /** A prompt to a session that is running: wait for it (default) or fail with `session_busy`. */
  busy?: "queue" | "reject";
  /** What this process runs, named in the `session_busy` error another process gets (default `arbor`). */
  holderName?: string;
  /**
   * The LLM response cache. Default: none, unless `config.cache.enabled`
   * (`ENABLE_LLM_CACHE`), which makes a file-backed one under `$ARBOR_HOME/cache/llm` with
   * `config.cache.ttl`; `false` turns it off whatever the config says.
   */
  cache?: LlmCache | false;
  /** Wraps every model where it is resolved, after the cache (a cassette recorder, say). */
  wrapModel?: ModelWrapper;
  /** Applied in order to every run's event stream, before a run's own. */
  middleware?: readonly RunMiddleware[];
  /** DebugMiddleware level for runs that do not say (default `off`). */
  debug?: DebugLevel;
  /** Told when a middleware hook throws; the event passes on and the run goes on. Default: ignored. */
  onMiddlewareError?: MiddlewareErrorHandler;
  /**
   * The context (tools, turns, timeout, token and tool-call budgets) of the sub-traces `explore` and
   * `delegate` start, over the defaults (explore: read-only tools, 20 turns; delegate: 50 turns).
   */
  subAgents?: { explore?: TraceContext; delegate?: TraceContext };
  /**
   * Your own features, taking part in every run after the built-in ones (goals, plan mode,
   * sub-agents), in this order: tools to offer, rules, hooks before and after each step, a reason to
   * stop. See `RunExtension` for the contract. Their tools join `tools`; a bad extension (no name,
   * a name used twice, a tool name taken) makes `createRuntime` throw `invalid_input`.
   */
  extensions?: readonly RunExtension[];
  /**
   * Observes every run from outside the built-in features (the OpenTelemetry GenAI traces of
   * `genAiTelemetry`, say): its extension wraps each run before the others and its model wrapper
   * applies outermost. Absent: nothing is observed and nothing is paid for.
   */
  telemetry?: RunObserver;
  /**
   * Record what each step changes in the workspace (`arbor.patch` entries, snapshots in a private
   * git history under `$ARBOR_HOME/snapshots`), so `revertSession` can undo it. Needs git; without
   * it runs go on unrecorded. Default off for a library runtime; the CLI and server turn it on.
   */
  snapshots?: boolean;
  /** How much of the recorded run streams (`runtime.events`) stays in memory in front of the store. */
  runEvents?: Omit<RunEventLogOptions, "onError">;
}

/** Who drives a session now: a run or session operation of this runtime, or another process holding its lease. */
/** What a resumed run may set; the rest comes from the session. */
export type ResumeOptions = Pick<RunInput, "agent" | "model" | "maxTurns" | "signal" | "debug" | "middleware">;

/** `runtime.compact`: a compaction the user asks for. */
export interface CompactOptions {
  /** What the summary should keep in particular ("the API design decisions"). */
  focus?: string;
  /** The model that writes the summary; default the pool's `compaction` model, else the run model. */
  model?: string | LanguageModelV4;
  signal?: AbortSignal;
}

export interface CompactResult {
  sessionId: string;
  /** The `compaction` entry written. */
  entryId: string;
  /** The context's size before and after, in tokens (provider usage where known, else counted). */
  tokensBefore: number;
  tokensAfter: number;
  /** Messages the summary replaced, and messages kept verbatim. */
  summarized: number;
  kept: number;
  splitTurn: boolean;
  usage: TokenUsage;
  /** Dollars the summary cost, from the catalog's prices; see `costKnown`. */
  cost: number;
  /** False when the summary model has no known price: `cost` then counts nothing and is not $0. */
  costKnown?: false;
}

/** `runtime.switchLeaf`: continue from another entry, optionally summarizing the branch left. */
export interface SwitchLeafOptions {
  /** Record a `branch_summary` of the branch being left, written by the compaction model. */
  summarize?: boolean;
  /**
   * With `summarize`: summarize the branch ending at this entry instead of the active path (bringing
   * another branch's conclusions back into the target, whichever branch is active now).
   */
  fromEntryId?: string;
  focus?: string;
  model?: string | LanguageModelV4;
  signal?: AbortSignal;
}

export interface SwitchLeafResult {
  sessionId: string;
  /** The leaf after the move: the target, or the branch summary appended under it. */
  leafId: string | null;
  branchSummary?: BranchSummaryEntry;
}

/** `runtime.defaults()`: the model a run gets when none is named (undefined: none configured) and the startable agents. */
export interface RuntimeDefaults {
  model: string | undefined;
  defaultAgent: string;
  /** `model`: the agent's own, which a run that names none uses before the default (after the session's). */
  agents: Array<{ name: string; description?: string; model?: string }>;
  /** Providers a session's recorded model must name for a later run to keep it. */
  providers: string[];
}

/** What `createRuntime` returns: the one way to run agents, whatever the front end. */
export interface Runtime {
  /**
   * Starts a run. Never throws: bad input (an empty prompt, an unknown session or model, a missing
   * key) ends the run at once with an `error` event and `result.status === "error"`, having written
   * nothing.
   */
  run(input: RunInput): RunHandle;
  /**
   * Takes up a run whose process died while it ran (a crash, kill -9): the session is `interrupted`.
   * The run goes on from its journal as if it had not stopped: what it wrote is kept (a cut-short
   * answer too), its steps, tokens, cost, goals and plan count from where they were, and each tool
   * call left without a result is run again when its tool is `safeToRepeat`, otherwise answered to
   * the model as interrupted. Like `run`, never throws: it ends at once with an `error` event,
   * having written nothing, for `session_not_found`, `session_not_interrupted` (nothing was cut
   * off), or `session_busy` (a live process drives the session). The agent defaults to the session's.
   */
  resume(sessionId: string, options?: ResumeOptions): RunHandle;
  /**
   * Edits a past `goal` call: a new branch starts just before the message that
   * made it, the call is redone with the new arguments and the run continues from there. Like
   * `run`, never throws: a bad spec ends the run at once with an `error` event, having written nothing.
   */
  replay(sessionId: string, spec: ReplaySpec, options?: Pick<RunInput, "agent" | "model" | "maxTurns" | "signal">): RunHandle;
  /** Asks waiting for an answer, oldest first; only those of one session when given. */
  pendingPermissions(sessionId?: string): PendingPermission[];
  /**
   * Answers a pending ask; false when no ask has that id (answered already, or never asked).
   * `scope` says where an "always" answer holds (default: the session).
   */
  replyPermission(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope): boolean;
  /**
   * Answers a plan waiting for approval. The run waiting for it goes on; when that run is
   * gone (a restart, an abort) the answer is recorded by a new run over the session, which runs
   * phase 2 or ends with the rejection: `result.run`. Throws `invalid_input`, `plan_not_found`,
   * `plan_not_pending`.
   */
  approvePlan(planId: string, approved: boolean, reason?: string): Promise<PlanApprovalResult>;
  /** Plans that runs of this runtime wait on, oldest first; only one session's when given. */
  pendingPlanApprovals(sessionId?: string): PlanApprovalRequest[];
  /** "Always" approvals in force at the session's leaf, so a user can see what was granted. */
  approvals(sessionId: string): Promise<ListedApproval[]>;
  /**
   * Every approval in force: the session's (when given), its workspace's (else the runtime's
   * `cwd`) and the global ones. Throws `session_not_found`.
   */
  listAllApprovals(sessionId?: string): Promise<ListedApproval[]>;
  /**
   * Withdraws the approval with this id (as listed by `listAllApprovals` for the same session) and
   * returns it; throws `approval_not_found` having changed nothing when none is in force.
   */
  revokeApprovalById(id: string, sessionId?: string): Promise<ListedApproval>;
  /** Withdraws an approval from the session's leaf on; false when it was not in force. */
  revokeApproval(sessionId: string, approval: Omit<Approval, "scope" | "revoked">): Promise<boolean>;
  /**
   * Summarizes the session's history now, keeping a recent tail verbatim;
   * queued behind a running turn. Throws an ArborError (`session_not_found`, `context_overflow` when
   * there is nothing to summarize, `compaction_failed`) having written nothing.
   */
  compact(sessionId: string, options?: CompactOptions): Promise<CompactResult>;
  /**
   * Moves the session's leaf to `entryId` (null: the next message starts a new root), persisted; with
   * `summarize`, records a `branch_summary` of the branch left, which the model sees when the session
   * continues there. Queued behind a running turn.
   */
  switchLeaf(sessionId: string, entryId: string | null, options?: SwitchLeafOptions): Promise<SwitchLeafResult>;
  /**
   * Puts the workspace back as it was before `to` (default: the last user message) and moves the
   * leaf there, from the steps' recorded snapshots (`snapshots: true`). Queued behind a running turn.
   * Throws `entry_not_found`, `session_busy` or `snapshot_failed` having changed nothing.
   */
  revert(sessionId: string, to?: string): Promise<RevertResult>;
  /** Undoes the last revert (files and leaf); `nothing_to_unrevert` when the leaf is not a revert. */
  unrevert(sessionId: string): Promise<UnrevertResult>;
  /** The LLM response cache the runtime's models answer from, when there is one. */
  readonly cache: LlmCache | undefined;
  /** What a run started without a model or agent would use, and the agents a run may be started with. */
  defaults(): RuntimeDefaults;
  /** The configured MCP servers, their state and tools (starting those not yet started). */
  mcpServers(signal?: AbortSignal): Promise<McpServerStatus[]>;
  /** The store the runtime's sessions live in (the caller's). */
  readonly store: Store;
  /**
   * The trace watch over the store's event log: the hub given as `watch`, else the runtime's own, which
   * its runs publish to (a custom publisher given as `watch` gets them instead; this hub then still
   * replays what the log holds and follows what other processes log).
   */
  readonly watch: WatchHub;
  /**
   * The run streams in the sessions' event logs: the runtime records every run it starts; callers
   * read (`follow` a handle, `reader` after an id), for readers that resume after a restart.
   */
  readonly events: RunEventLog;
  /**
   * Whether the session has a driver now: a run, compaction or leaf move of this runtime (queued or
   * going), or another process holding the session's lease. Undefined when it is idle.
   */
  busy(sessionId: string): Promise<SessionDriver | undefined>;
  /**
   * Sends a message to the run driving the session, in this process or another: it is recorded in
   * the session's inbox in the store at once and the run writes it as a user message, wrapped in a reminder
   * to address it and carry on, before its next model call. Throws, writing nothing: `invalid_id`,
   * `invalid_input` (empty text), `session_not_found`, `session_not_running` (start a run instead).
   */
  steer(sessionId: string, text: string): Promise<SteerResult>;
  /** Aborts this runtime's runs of the session (going or queued); false when it has none. */
  abort(sessionId: string, reason?: unknown): boolean;
  /** Aborts every run and waits for them to settle and stops MCP servers; the store stays open (it is the caller's). */
  close(): Promise<void>;
}
