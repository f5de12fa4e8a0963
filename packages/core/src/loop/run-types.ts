import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Principal } from "../auth/principal.js";
import type { ArborError } from "../errors.js";
import type { DebugLevel } from "../events/debug-records.js";
import type { LlmCallDetail, LlmCallLog } from "../llm/llm-call-log.js";
import type { ThinkingLevel } from "../model/entry.js";
import type { TokenUsage, UserMessage } from "../model/message.js";
import type { RunEvent } from "../model/run-events.js";
import type { Store } from "../store/store.js";
import type { AnyToolDefinition } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";

export interface RunInput {
  /** Continue this session; a new session is created when absent. */
  sessionId?: string;
  /**
   * Without `sessionId`: the id the new session gets (a client that names its chats), instead of a
   * generated one. It is created only once the input is valid, so bad input leaves nothing behind.
   */
  newSessionId?: string;
  /** The user's message. */
  prompt: string | UserMessage["content"];
  /** Agent name (default `build`). */
  agent?: string;
  /**
   * `provider/model` for this run, or a model instance. A continued session otherwise keeps the model
   * it last used; naming another records a `model_change`.
   */
  model?: string | LanguageModelV4;
  /**
   * How hard the model thinks from this run on (`off` turns it off; providers map the level to their
   * own setting). Recorded as a `thinking_level_change`, so a continued session keeps it; without it
   * the session's level, else the agent's, else `thinking` in the config, else the provider's default.
   */
  thinking?: ThinkingLevel;
  /** The workspace for this run (default the runtime's). */
  cwd?: string;
  maxTurns?: number;
  /**
   * What this run and every sub-agent under it may spend together (default `agent.maxTraceTokens`
   * and `agent.maxTraceCost` in the config). At the cap the run stops with stopReason `budget` and
   * sub-agents are refused. Ignored for a sub-run, which shares its top run's.
   */
  traceBudget?: { maxTokens?: number; maxCost?: number };
  signal?: AbortSignal;
  /** Extra system text appended after the project instructions. */
  system?: string;
  /** Applied after the runtime's middleware to this run's events. */
  middleware?: readonly RunMiddleware[];
  /** DebugMiddleware level for this run (default the runtime's `debug`); records are kept in the session's event log. */
  debug?: DebugLevel;
  /**
   * Continue from this entry of `sessionId` instead of its leaf: a user message is re-sent from its
   * parent (the new prompt becomes its sibling on a new branch), any other entry is followed by the
   * new prompt. The leaf moves once the run holds the session, so nothing else lands in between.
   */
  fromEntryId?: string;
  /**
   * The key of the queued request this prompt came from, kept on its user message: a request retried
   * after its worker died looks for it to tell whether the prompt was written before.
   */
  requestKey?: string;
  /** A session that is running already: wait for it (the runtime's default) or end at once with `session_busy`. */
  busy?: "queue" | "reject";
  /**
   * Tools offered in this run only, after the runtime's and its extensions' (a name already taken is
   * left out: the runtime's tool wins). For a front door whose client brings tools of its own (the
   * Responses API's function tools); they are not recorded, so a run resumed after a crash lacks them.
   */
  tools?: readonly AnyToolDefinition[];
  /**
   * Who sends the prompt: recorded as `sentBy` on its user message and `createdBy` on a session the
   * run creates. `runtime.runs.start` and `admit` check its `run` scope and projects first.
   */
  principal?: Principal;
  /**
   * Caller-supplied context handed to every tool call of this run as `ToolContext.extra` (not
   * recorded: a run resumed after a crash has none). Sub-runs started by the run's tools do not inherit it.
   */
  extra?: Readonly<Record<string, unknown>>;
  /**
   * Where the file tools read and write and `bash` runs, when a host offers its own (an editor's
   * buffers and terminal); the local disk and shell otherwise. Passed to the run's sub-runs too; not
   * recorded, so a run resumed after a crash works locally.
   */
  workspace?: Workspace;
  /**
   * MCP resources the runtime reads and adds to the user message after the prompt's text (a text
   * resource as text under its URI, an image as a file, other binary content as a label). A resource
   * that cannot be read fails the run before anything is recorded.
   */
  attachments?: readonly RunAttachment[];
  /**
   * An MCP server's prompt, filled in by its server with `arguments`: its messages open the user
   * message, and the prompt's own text (when any) follows them.
   */
  mcpPrompt?: { server: string; name: string; arguments?: Readonly<Record<string, string>> };
}

/** Something a front door attaches to a prompt for the runtime to resolve: an MCP server's resource. */
export type RunAttachment = { mcpResource: { server: string; uri: string } };

export type RunStatus = "done" | "error" | "aborted";

/** Why a `done` run stopped. */
export type StopReason = "finished" | "max_turns" | "permission_rejected" | "doom_loop" | "budget" | "plan_rejected";

export interface RunResult {
  sessionId: string;
  status: RunStatus;
  stopReason?: StopReason;
  /** Why it stopped, in words, when that needs saying (a spent budget). */
  stopMessage?: string;
  /** The final assistant text (the last step's). */
  text: string;
  /** Model calls made. */
  steps: number;
  usage: TokenUsage;
  /** Dollars, from the catalog's prices; see `costKnown`. */
  cost: number;
  /**
   * `false` when some model call of the run used a model without a known price (a local server, a
   * model the catalog lacks): `cost` then counts only the priced calls and must not be shown as the
   * run's cost. Absent when every call was priced.
   */
  costKnown?: false;
  /** Automatic compactions during the run; their model calls are in `usage` and `cost`. */
  compactions?: number;
  error?: { code: string; message: string };
}

/** A started run: iterate it for the run stream; `result` settles when the run ends (it never rejects). */
export interface RunHandle extends AsyncIterable<RunEvent> {
  readonly sessionId: string;
  readonly result: Promise<RunResult>;
  abort(reason?: unknown): void;
}

/** What a middleware sees of the run it is in: the part of the run's context it may read. */
export interface MiddlewareContext {
  /** Unique per run, also across runs of one session. */
  readonly runId: string;
  readonly sessionId: string;
  readonly input: Readonly<RunInput>;
  readonly store: Store;
  readonly signal: AbortSignal;
  /** The runtime's clock, in ms. */
  now(): number;
  readonly startedAt: number;
  /** The run's result, set before `onRunEnd`. */
  readonly result: RunResult | undefined;
  /** The run's model calls with their whole prompts and outputs, when a middleware wants them (see `RunMiddleware.wants`). */
  readonly llmCalls: LlmCallLog | undefined;
}

/**
 * A run middleware: watches or reshapes a run's events without the loop knowing it. The runtime applies a run's middleware in order to every
 * event of its stream: each `onEvent` gets what the previous one returned, and returns the event
 * (changed or not) to pass on, or null to suppress it (undefined passes it on unchanged). Every hook
 * may be async; events still reach the stream in order. A hook that throws is reported to the
 * runtime's `onMiddlewareError` and skipped (the event passes on as it came); it never fails the run.
 */
export interface RunMiddleware {
  /** Names the middleware in error reports. */
  readonly name?: string;
  /** `llmCalls`: log each model call of the run in `ctx.llmCalls` at this detail. */
  readonly wants?: { llmCalls?: LlmCallDetail };
  onRunStart?(ctx: MiddlewareContext): void | Promise<void>;
  onEvent?(event: RunEvent, ctx: MiddlewareContext): RunEvent | null | undefined | Promise<RunEvent | null | undefined>;
  /** After the last event (`done` or `error`) has passed; the run's result waits for it. */
  onRunEnd?(ctx: MiddlewareContext): void | Promise<void>;
}

export type MiddlewareErrorHandler = (error: ArborError) => void;

/** How the loop (or what an extension wraps around it) ended. */
export interface StepsOutcome {
  status: RunStatus;
  stopReason?: StopReason;
  stopMessage?: string;
  error?: { code: string; message: string };
}
