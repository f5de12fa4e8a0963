import type { LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import type { ContextSize } from "../context/context-size.js";
import type { TokenCounter } from "../context/token-counter.js";
import type { AffectedGoal, WatchEventInput } from "../events/watch-events.js";
import type { Entry, MessageEntry } from "../model/entry.js";
import type { Message } from "../model/message.js";
import type { RunEventInput } from "../model/run-events.js";
import type { PermissionAsk } from "../permissions/ask.js";
import type { PermissionRule } from "../permissions/permission.js";
import type { ContextState } from "../session/context.js";
import type { Store } from "../store/store.js";
import type { LoopStep } from "../tools/doom-loop.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { RunValues } from "../tools/run-values.js";
import type { AnyToolDefinition, ToolOutcome } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import type { PromptCache } from "./prompt.js";
import type { StepsOutcome, StopReason } from "./run-types.js";
import type { RunTally } from "./tally.js";
import type { TraceSpend } from "./trace-spend.js";
import type { AgentDefinition, LoopClock, ResolvedModel, RetryNotice, RetryOptions } from "./types.js";

export type { RunEventInput } from "../model/run-events.js";

/**
 * Everything one run needs and changes. The loop keeps no state anywhere
 * else, so runs in one process — of one session after another, or of many sessions at once —
 * never see each other's data.
 */
export interface RunContext {
  readonly sessionId: string;
  readonly store: Store;
  readonly config: Config;
  readonly agent: AgentDefinition;
  readonly model: ResolvedModel;
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly clock: LoopClock;
  readonly retry: Required<RetryOptions>;
  /** Told of each retry of this run's model calls (`RuntimeOptions.onRetry`). */
  readonly onRetry?: ((notice: RetryNotice) => void) | undefined;
  readonly registry: ToolRegistry;
  /** Function tools offered to the model this run (those the agent's rules do not deny outright). */
  readonly tools: LanguageModelV4FunctionTool[];
  readonly toolNames: readonly string[];
  readonly permission: PermissionAsk;
  readonly maxTurns: number;
  readonly prompts: PromptCache;
  system: string;
  /** The context at the session's leaf, advanced with each entry this run appends. */
  state: ContextState;
  /** Steps, spending, compactions and the last answer, folded from the entries written; advanced only by the journal. */
  tally: RunTally;
  /** Recent calls and texts for the doom-loop guard; bounded. */
  history: LoopStep[];
  /** Local token counts (shared by the runtime's runs) and the incremental measure of the next prompt. */
  readonly tokens: TokenCounter;
  readonly size: ContextSize;
  /** Tokens of the system prompt and tool definitions, recomputed when either changes. */
  overhead?: { exact: boolean; system: string; tokens: number };
  /** The model that writes compaction summaries: the pool's `compaction` model, else the run's. */
  summaryModel(): ResolvedModel;
  emit(event: RunEventInput): void;
  /** The features taking part in this run, in hook order. */
  readonly extensions: readonly RunExtension[];
  /** Limits from the trace's context beyond maxTurns: what a sub-trace may spend. */
  readonly budget: { readonly maxTokens?: number; readonly maxToolCalls?: number; readonly maxConcurrentSubTraces?: number };
  /** What this run's whole trace (it, its sub-runs, their sub-runs) has spent, against its cap. */
  readonly traceSpend: TraceSpend;
  toolCalls: number;
  /** `RunInput.extra`, passed to every tool call as `ToolContext.extra`. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** `RunInput.workspace`, passed to every tool call as `ToolContext.workspace` and to sub-runs. */
  readonly workspace?: Workspace;
  /**
   * The features' state for this run, by the keys they declare (`goalsKey`, say): set by their
   * extensions in `start`, read by their tools as `ToolContext.run`. The loop knows no key.
   */
  readonly values: RunValues;
  /** Tells the watchers of this trace, or of a sub-trace it started (a no-op without a watch hub); never waited for. */
  publish(event: WatchEventInput, traceId?: string): void;
}

/**
 * How a feature takes part in a run without the loop knowing its name: plan mode, the goal tree and
 * sub-agents all join through this, and so do a runtime user's own extensions
 * (`createRuntime({ extensions })`). The loop is context → model → persist → tools → repeat; each
 * hook is one point of that cycle where a feature may add to it. Every hook is optional.
 *
 * The contract:
 * - Hooks run in the order the extensions are listed; a user's run after the built-in ones, in the
 *   order given, in every run of the runtime (sub-runs of `explore`, `delegate` and plan steps too).
 * - An extension given to `createRuntime` is one object shared by all runs, concurrent ones
 *   included: keep per-run state keyed by the run (a `WeakMap<RunContext, …>` filled in `start`),
 *   never in a plain field.
 * - Hooks other than `beforeStep`, `afterStep` and the `around*` ones are synchronous. A hook that throws ends
 *   the run as an error carrying its message. Entries are written only through the run's journal
 *   (`appendEntry`, `appendMessage`: `beforeStep` and `afterStep` may append, at a step boundary
 *   where no call waits for its result), never to the store directly, so what
 *   the model sees next, what watchers hear and what is stored stay one.
 * - An extension changes the run only through what its hooks return and the tools it offers; the
 *   run's context is read-only to it except where a hook says otherwise.
 */
export interface RunExtension {
  /** Names the extension in errors and traces; unique among a runtime's extensions. */
  readonly name: string;
  /**
   * Tools the extension offers: a feature brings its own (`goal`, the plan tools, `explore` and
   * `delegate`, the todo tools), so no list of tools names it. They are offered in each run the
   * extension takes part in, after the runtime's tools, and permission-checked like any other tool,
   * so `rules` can keep them from an agent (or hide them where the feature is off). A runtime tool
   * of the same name wins: a caller that lists a feature's tool itself keeps its own; two
   * extensions of one run offering one name end the run as an error. Those of an extension given to
   * `createRuntime` join the runtime's tools when it is made (a name already taken is refused there).
   * A tool reaches its feature's state for the run through the key the feature declares
   * (`ToolContext.run`).
   */
  readonly tools?: readonly AnyToolDefinition[];
  /**
   * Permission rules added after the agent's, the user's and the session's approvals. A feature
   * hides its tools where it is off with `deny` rules here: a denied tool is not offered to the model.
   */
  readonly rules?: readonly PermissionRule[];
  /** Once the run's context exists, before anything is written: bind state, set the slots of `values` its tools read. */
  start?(run: RunContext): void;
  /** Text put after the run's system prompt for one model call (the plan in force, say). */
  system?(run: RunContext): string | undefined;
  /**
   * Rewrites the whole system prompt of each model call, after every extension's `system` text was
   * added: extensions apply in order, each given the previous one's result. For plugins that must
   * reorder, remove or wrap what the prompt says (seed 004's `experimental.chat.system.transform`);
   * return the text unchanged to leave it. Must be pure and quick: it runs before every model call.
   */
  transformSystem?(run: RunContext, system: string): string;
  /**
   * A step begins: the model is about to be called. May append messages the model should read in
   * this step (the previous step's tool results are all written by now).
   */
  beforeStep?(run: RunContext): void | Promise<void>;
  /** A message is about to be written: returns it as it should be stored (tagged, say). */
  message?(run: RunContext, message: Message): Message;
  /** A message was written and the context advanced: what watchers are told changed with it. */
  written?(run: RunContext, entry: MessageEntry): { affectedGoals?: AffectedGoal[] } | undefined;
  /**
   * A step is over (its tool results written, or it ended the run): may write entries of its own.
   * Returns a promise when it does work that waits; a step with nothing to do may return nothing.
   */
  afterStep?(run: RunContext): void | Promise<void>;
  /**
   * Asked after a step whose tools ran, before that step's `afterStep`: the first reason given ends
   * the run there as `done` with that reason.
   */
  stop?(run: RunContext): StopReason | undefined;
  /** Around the whole loop: may run before it, after it (plan mode's phase 2), or instead of it. */
  around?(run: RunContext, loop: () => Promise<StepsOutcome>): Promise<StepsOutcome>;
  /**
   * Around one tool call's execution (the first extension outermost), so what the tool starts — a
   * sub-agent, say — runs inside what the extension set up; must call `invoke` once and return its outcome.
   */
  aroundTool?(run: RunContext, call: ToolCallInfo, invoke: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
  /**
   * Only in a woken run (`runtime.resume`: its process died mid-run). `call` was left without a
   * result and its tool runs at most once (`effects`), so by default the model reads that it was
   * interrupted (or, never recorded started, it runs for the first time). Return true when this extension's tool can take up the work that call had begun
   * instead of starting it again (a sub-agent whose session continues from its own journal, say):
   * the call then runs once more through the usual path (permission, `aroundTool`, the tool), and
   * its real result is recorded. The extension must make the tool continue, never repeat, what it
   * had started: that is its promise, the loop cannot check it. Asked in extension order while the
   * run's open calls are settled (after `start`); the first true takes the call. Synchronous.
   */
  resumesCall?(run: RunContext, call: ToolCallInfo): boolean;
  /**
   * Around an automatic compaction's summary and the entries it writes (the first extension
   * outermost); must call `compact` once and return the entries it wrote.
   */
  aroundCompaction?(run: RunContext, compact: () => Promise<readonly Entry[]>): Promise<readonly Entry[]>;
}

/** The tool call an extension's `aroundTool` is wrapped around. */
export interface ToolCallInfo {
  readonly callId: string;
  readonly tool: string;
  /** The assistant message entry that made the call. */
  readonly messageId: string;
}

export { addUsage, ZERO_USAGE } from "../llm/usage.js";
