import type { LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import type { ContextSize } from "../context/context-size.js";
import type { GoalCompactionData } from "../context/goal-compaction.js";
import type { TokenCounter } from "../context/token-counter.js";
import type { WatchEventInput } from "../events/watch-events.js";
import type { GoalTree } from "../goal/goal-tree.js";
import type { TokenUsage } from "../model/message.js";
import type { RunEvent } from "../model/run-events.js";
import type { ContextState } from "../session/context.js";
import type { Store } from "../store/store.js";
import type { PermissionAsk } from "../tools/ask.js";
import type { LoopStep } from "../tools/doom-loop.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { RunServices } from "../tools/run-services.js";
import type { PromptCache } from "./prompt.js";
import type { AgentDefinition, LoopClock, ResolvedModel, RetryOptions } from "./types.js";

/** Event payloads as the loop writes them; `session_id` is added in one place. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "session_id"> : never) : never;

/**
 * Everything one run needs and changes (SPEC 8 `RunContext`). The loop keeps no state anywhere
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
  step: number;
  usage: TokenUsage;
  cost: number;
  lastText: string;
  /** Recent calls and texts for the doom-loop guard; bounded. */
  history: LoopStep[];
  /** Local token counts (shared by the runtime's runs) and the incremental measure of the next prompt. */
  readonly tokens: TokenCounter;
  readonly size: ContextSize;
  /** Tokens of the system prompt and tool definitions, recomputed when either changes. */
  overhead?: { exact: boolean; system: string; tokens: number };
  /** The model that writes compaction summaries: the pool's `compaction` model, else the run's. */
  summaryModel(): ResolvedModel;
  /** Compactions made during this run. */
  compactions: number;
  emit(event: RunEventInput): void;
  /** The plan (SPEC 5): the latest tree on the active path, changed by `goal` and sub-trace calls. */
  goals: GoalTree | undefined;
  /** The first user prompt of the trace: the mission of a plan the run starts. */
  readonly mission: string;
  /** Goals the step closed, collapsed once the step's tool results are all written (SPEC 6). */
  goalCompactions: GoalCompactionData[];
  /** Limits from the trace's context beyond maxTurns (SPEC 3). */
  readonly budget: { readonly maxTokens?: number; readonly maxToolCalls?: number; readonly maxConcurrentSubTraces?: number };
  toolCalls: number;
  /** What `goal`, `explore` and `delegate` use of this run. */
  services?: RunServices;
  /** Tells the watchers of this trace, or of a sub-trace it started (a no-op without a watch hub); never waited for. */
  publish(event: WatchEventInput, traceId?: string): void;
}

export function addUsage(total: TokenUsage, step: TokenUsage): TokenUsage {
  return {
    input: total.input + step.input,
    output: total.output + step.output,
    reasoning: total.reasoning + step.reasoning,
    cacheRead: total.cacheRead + step.cacheRead,
    cacheWrite: total.cacheWrite + step.cacheWrite,
  };
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 });
