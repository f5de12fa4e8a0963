import type { ModelWrapper } from "../llm/model-wrapper.js";
import type { ModelResolver } from "../llm/resolved-model.js";
import type { StreamedToolCall } from "../llm/stream-step.js";
import type { Entry } from "../model/entry.js";
import type { AssistantMessage } from "../model/message.js";
import type { TraceContext } from "../model/session.js";
import type { PromptFiles } from "../prompt/prompt-files.js";
import type { Store } from "../store/store.js";
import type { RunExtension } from "./run-context.js";
import type { TraceSpend } from "./trace-spend.js";

export type { RunExtension } from "./run-context.js";
export type { StepsOutcome } from "./run-types.js";

/** What a run knows when its extensions are made: how it was started and the session's active path. */
export interface RunLaunch {
  readonly sessionId: string;
  readonly options: ExecuteOptions;
  readonly path: readonly Entry[];
  /** The trace's task as the user first gave it. */
  readonly mission: string;
  /** The run's model resolver (model calls an extension makes are logged like the run's). */
  readonly models: () => ModelResolver;
}

/** Makes the extensions of one run. */
export type ExtensionFactory = (launch: RunLaunch) => RunExtension[];

/** A span's W3C trace context as `traceparent` and `tracestate` carry it (an MCP request's `_meta`, HTTP headers). */
export interface TraceContextFields {
  traceparent: string;
  tracestate?: string;
}

/**
 * Watches runs from outside every feature: `extension` is made for each run (sub-runs too) and put
 * first, so its `around` and `aroundTool` wrap all the others; `wrapModel` wraps each model where
 * the runtime resolves it, after any other wrapper. `traceContext` gives the trace context of the
 * span current where it is called (inside a tool call, that call's span), for what the run calls out
 * to (an MCP server) to join the trace; undefined where no span is.
 */
export interface RunObserver {
  extension(launch: RunLaunch): RunExtension;
  wrapModel?: ModelWrapper;
  traceContext?(): TraceContextFields | undefined;
}

/** A sub-trace's session, made by the run that starts it. */
export interface TraceLaunch {
  parentSessionId: string;
  parentGoalId?: string;
  agentType: string;
  task: string;
  context: TraceContext;
  /** Start from the parent's context as it was before this entry (explore without `background`). */
  inheritFrom?: { sessionId: string; beforeEntryId: string };
}

/** A past call redone on a new branch: where the branch starts, the edited message and its call. */
export interface PreparedReplay {
  /** The entry before the edited message (null: a new root). */
  branchFrom: string | null;
  /** The edited message: the original with only the edited call, its arguments changed. */
  message: AssistantMessage;
  call: StreamedToolCall;
}

export interface ExecuteOptions {
  trace?: TraceLaunch;
  /** Continue the session from its leaf without a new user message; the prompt is ignored. */
  resume?: boolean;
  /**
   * Take up a run its process left unfinished (implies resume): budgets are read back from the
   * journal and calls without a result are settled by their tool's `effects` (re-run, or answered as
   * interrupted) unless a feature takes up their work (`RunExtension.resumesCall`).
   */
  wake?: boolean;
  /** Branch before a past call, redo it edited and continue (implies resume); checks before writing. */
  replay?: (store: Store, sessionId: string) => Promise<PreparedReplay>;
  /** This run's extensions, in place of the runtime's. */
  extensions?: ExtensionFactory;
  /** A sub-run's: the spend of the trace it is part of, shared with its parent. */
  traceSpend?: TraceSpend;
  /** A sub-run's: the prompt files its batch reads once for all its branches. */
  promptFiles?: PromptFiles;
  /**
   * Called once the run has created its session, before it writes anything to it: for what must be
   * the first thing in the session's own event log (a sub-trace's `sub_trace_started`), which a
   * publish made earlier could not reach (the session did not exist yet).
   */
  onSessionCreated?: () => void;
}
