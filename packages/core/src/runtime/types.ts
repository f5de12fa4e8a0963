import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import type { DebugLevel } from "../events/debug-records.js";
import type { RunEventLog, RunEventLogOptions } from "../events/run-event-log.js";
import type { WatchHub } from "../events/watch-hub.js";
import type { LlmCache } from "../llm/cache/llm-cache.js";
import type { ModelWrapper } from "../llm/model-wrapper.js";
import type { ModelResolver } from "../llm/resolved-model.js";
import type { RunObserver } from "../loop/extension.js";
import type { RunExtension } from "../loop/run-context.js";
import type { MiddlewareErrorHandler, RunMiddleware } from "../loop/run-types.js";
import type { AgentDefinition, LoopClock, PermissionHandler, RetryNotice, RetryOptions, TracePublisher } from "../loop/types.js";
import type { ElicitationHandler } from "../mcp/elicitations.js";
import type { McpLoginHandler } from "../mcp/login-asks.js";
import type { McpServerStatus } from "../mcp/manager.js";
import type { McpCredentialStore } from "../mcp/oauth-credentials.js";
import type { TraceContext } from "../model/session.js";
import type { PermissionConfig, PermissionRule } from "../permissions/permission.js";
import type { PlanApprovalHandler } from "../plan/plan-gate.js";
import type { QuestionHandler } from "../questions/question-asks.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { Store } from "../store/store.js";
import type { BlobStore } from "../tools/blob-store.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/tool.js";
import type { RuntimeAccess } from "./access.js";
import type { RuntimeAsks } from "./asks-api.js";
import type { RuntimeMcp } from "./mcp-api.js";
import type { RuntimeRuns } from "./runs-api.js";
import type { RuntimeSessions } from "./sessions-api.js";

export type { RuntimeAccess } from "./access.js";
export type { RuntimeAsks, SessionApproval } from "./asks-api.js";
export type {
  AdmitResult,
  DriverInfo,
  ResumeOptions,
  RuntimeRuns,
  SessionDriver,
  StartInput,
  StartResult,
  Steered,
} from "./runs-api.js";
export type {
  BusyPolicy,
  CompactOptions,
  CompactResult,
  RuntimeSessions,
  SessionOpOptions,
  SessionSummary,
  SteerResult,
  SummaryOptions,
  SwitchLeafOptions,
  SwitchLeafResult,
} from "./sessions-api.js";

export interface RuntimeOptions {
  store: Store;
  /**
   * Where every run publishes its trace watch events (start, messages, goals, sub-traces, end);
   * default the runtime's own hub over the store (`runtime.watch`).
   */
  watch?: TracePublisher;
  /** Resolved settings; defaults to the built-in defaults (no files, no environment). */
  config?: Config;
  /** The sandbox tools' processes run in; by default one built from `config.sandbox`. */
  sandbox?: Sandbox;
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
  /** Where MCP servers' OAuth logins are read from; default the files `arbor mcp login` writes under `arborHome`. */
  mcpCredentials?: McpCredentialStore;
  /** User permission rules, merged after the agent's so the user has the last word. */
  permission?: readonly PermissionRule[] | PermissionConfig;
  onPermission?: PermissionHandler;
  /** How long an ask (a permission, a plan) waits for an answer before it expires and is refused; default 24 h. */
  askTtlMs?: number;
  /** How often a run waiting on an ask reads the store for an answer given in another process; default 250 ms. */
  askPollMs?: number;
  /** Answers plan approvals (PLAN_REQUIRE_APPROVAL) when someone is at hand; undefined leaves them to `approvePlan`. */
  onPlanApproval?: PlanApprovalHandler;
  /** Answers the `question` tool's questions when someone is at hand (a terminal); undefined leaves them to `runtime.asks`. */
  onQuestion?: QuestionHandler;
  /** Answers MCP servers' elicitations (a form, a URL to open) when someone is at hand; undefined leaves them to `runtime.asks`. */
  onElicitation?: ElicitationHandler;
  /**
   * Where the browser comes back to after a login an MCP server wants during a run: with it, such a
   * server's tool call raises an `mcp_login` ask (the authorization URL to open) and waits; without
   * it the call fails with `mcp_login_required`. `arbor serve` gives its `/api/mcp/oauth/callback`.
   */
  mcpLoginRedirect?: () => string | undefined | Promise<string | undefined>;
  /** Answers `mcp_login` asks when someone is at hand (a terminal: print the URL, listen on the loopback); undefined leaves them to `runtime.asks`. */
  onMcpLogin?: McpLoginHandler;
  retry?: RetryOptions;
  /** Told of each retry of a run's model calls as its wait begins (the CLI prints it); never fails the run. */
  onRetry?: (notice: RetryNotice & { sessionId: string }) => void;
  clock?: LoopClock;
  /** A prompt or session operation meeting a session that is running: wait for it (default) or fail with `session_busy`. */
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
   * git history under `$ARBOR_HOME/snapshots`), so `runtime.sessions.revert` can undo it. Needs git; without
   * it runs go on unrecorded. Default off for a library runtime; the CLI and server turn it on.
   */
  snapshots?: boolean;
  /** How much of the recorded run streams (`runtime.events`) stays in memory in front of the store. */
  runEvents?: Omit<RunEventLogOptions, "onError">;
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

/**
 * What `createRuntime` returns: the one way to run agents and to change sessions, whatever the front
 * end. Front doors (HTTP routes, protocols, CLI commands) translate their wire to these calls and
 * never write the store or judge "busy" themselves.
 */
export interface Runtime {
  /** Starting, following and stopping runs. */
  readonly runs: RuntimeRuns;
  /** Every change to a session outside a run, each in the session's slot under its lease. */
  readonly sessions: RuntimeSessions;
  /** Permission asks, plans waiting for approval, and "always" approvals. */
  readonly asks: RuntimeAsks;
  /** Who may do what: principals' scopes and projects, checked for every front door alike. */
  readonly access: RuntimeAccess;
  /** The LLM response cache the runtime's models answer from, when there is one. */
  readonly cache: LlmCache | undefined;
  /** What a run started without a model or agent would use, and the agents a run may be started with. */
  defaults(): RuntimeDefaults;
  /** The configured MCP servers, their state and tools (starting those not yet started). */
  mcpServers(signal?: AbortSignal): Promise<McpServerStatus[]>;
  /** The configured MCP servers' resources and prompts, for front doors to list and preview. */
  readonly mcp: RuntimeMcp;
  /** The store the runtime's sessions live in (the caller's): read it freely, change it through the runtime. */
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
  /** Aborts every run and waits for them to settle and stops MCP servers; the store stays open (it is the caller's). */
  close(): Promise<void>;
}
