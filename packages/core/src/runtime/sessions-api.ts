import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Principal } from "../auth/principal.js";
import type { BranchSummaryEntry, Entry } from "../model/entry.js";
import type { TokenUsage } from "../model/message.js";
import type { SessionInit, SessionMeta } from "../model/session.js";
import type { RevertResult, UnrevertResult } from "../snapshot/revert-path.js";
import type { SessionDiff } from "../snapshot/session-diff.js";
import type { SessionExport } from "../store/export-format.js";

/**
 * How an operation meets a session that has a driver: wait behind this runtime's run of it
 * (`queue`), or fail at once with `session_busy` naming the driver (`reject`). A driver in another
 * process always means `session_busy`: its lease refuses every write.
 */
export type BusyPolicy = "queue" | "reject";

/** What every session operation may say; `busy` defaults to the runtime's `busy` option (else `queue`). */
export interface SessionOpOptions {
  busy?: BusyPolicy;
  /**
   * Who asks (see `runtime.access`): the operation checks its scope and that the session lies in its
   * projects first (`scope_required`, `session_not_found`), and what it creates records its id.
   * Absent: a caller inside the process, which may do anything.
   */
  principal?: Principal;
}

/** A steering message recorded for a running session. */
export interface SteerResult {
  sessionId: string;
  /** The message's id in the session's inbox. */
  messageId: string;
}

/** `runtime.sessions.compact`: a compaction the user asks for. */
export interface CompactOptions extends SessionOpOptions {
  /** What the summary should keep in particular ("the API design decisions"). */
  focus?: string;
  /** The model that writes the summary; default the pool's `compaction` model, else the run model. */
  model?: string | LanguageModelV4;
  signal?: AbortSignal;
}

/** `runtime.sessions.summary`: the `summary` helper, asked for now. */
export interface SummaryOptions extends Pick<SessionOpOptions, "principal"> {
  /** The model that writes it; default the pool's `summary` model, else the session's model. */
  model?: string | LanguageModelV4;
  signal?: AbortSignal;
}

/** A session's summary for people (not the model's compaction summary); nothing of it is stored. */
export interface SessionSummary {
  sessionId: string;
  summary: string;
  /** `provider/model` that wrote it. */
  model: string;
  usage: TokenUsage;
  cost: number;
  /** False when the model has no known price: `cost` then counts nothing and is not $0. */
  costKnown?: false;
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

/** `runtime.sessions.switchLeaf`: continue from another entry, optionally summarizing the branch left. */
export interface SwitchLeafOptions extends SessionOpOptions {
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

/**
 * `runtime.sessions`: every change to a session made outside a run. Each validates its input first
 * and changes nothing when it throws. Those that write an existing session run in the session's slot
 * (behind this runtime's run of it, or refused with `busy: "reject"`) holding the session's lease, so
 * none lands in the middle of a turn, here or in another process.
 */
/** What `revert` takes back: the session from `to` on, or only one `file` and/or one `step`'s change. */
export interface RevertTarget {
  to?: string;
  /** A workspace-relative path. */
  file?: string;
  /** An `arbor.patch` entry id, or the id of the assistant message whose step it recorded. */
  step?: string;
}

export interface RuntimeSessions {
  /** A new, empty session. Throws `session_exists` when the id is taken. */
  create(init?: SessionInit, options?: Pick<SessionOpOptions, "principal">): Promise<SessionMeta>;
  /**
   * Sends a message to the run driving the session, in this process or another: it is recorded in
   * the session's inbox in the store at once and the run writes it as a user message, wrapped in a reminder
   * to address it and carry on, before its next model call. Throws, writing nothing: `invalid_id`,
   * `invalid_input` (empty text), `session_not_found`, `session_not_running` (start a run instead).
   */
  steer(sessionId: string, text: string, options?: Pick<SessionOpOptions, "principal">): Promise<SteerResult>;
  /** Sets (`label` given) or clears (undefined) the label of an entry. Throws `entry_not_found`. */
  label(sessionId: string, entryId: string, label: string | undefined, options?: SessionOpOptions): Promise<Entry>;
  /**
   * Moves the session's leaf to `entryId` (null: the next message starts a new root), persisted; with
   * `summarize`, records a `branch_summary` of the branch left, which the model sees when the session
   * continues there.
   */
  switchLeaf(sessionId: string, entryId: string | null, options?: SwitchLeafOptions): Promise<SwitchLeafResult>;
  /**
   * A new session holding the path root → `entryId` and its labels. Reads the source and writes only
   * the new session, so it needs no slot: a running session can be forked.
   */
  fork(sessionId: string, entryId: string, options?: Pick<SessionOpOptions, "principal">): Promise<SessionMeta>;
  /** Deletes the session, its sub-sessions and its recorded run streams. */
  delete(sessionId: string, options?: SessionOpOptions): Promise<void>;
  /**
   * Deletes a message of the active path (as its trace lists it: with its agent steps and tool calls)
   * for good: its entries become tombstones in the store (ids and tree shape kept, content erased,
   * marked `purged`), saved outputs only it mentions leave the blob store, the LLM response cache is
   * emptied, and an `arbor.delete` entry takes it off the trace and the model's context. Returns that
   * entry. Throws `message_not_found`.
   */
  deleteMessage(sessionId: string, messageId: string, options?: SessionOpOptions): Promise<Entry>;
  /** Writes a whole exported session at once; `session_exists` unless `newId`. */
  import(data: SessionExport, options?: { newId?: boolean } & Pick<SessionOpOptions, "principal">): Promise<SessionMeta>;
  /**
   * Summarizes the session's history now, keeping a recent tail verbatim. Throws an ArborError
   * (`session_not_found`, `context_overflow` when there is nothing to summarize, `compaction_failed`)
   * having written nothing.
   */
  compact(sessionId: string, options?: CompactOptions): Promise<CompactResult>;
  /**
   * What the session's active path did, in a few lines, written now by the `summary` helper (the
   * pool's `summary` model, else the session's). Reads only, so a running session can be summarized.
   * Throws `session_not_found`, `invalid_input` (no messages yet) or `summary_failed`.
   */
  summary(sessionId: string, options?: SummaryOptions): Promise<SessionSummary>;
  /**
   * Puts the workspace back as it was before `to` (default: the last user message) and moves the
   * leaf there, from the steps' recorded snapshots (`snapshots: true`). Given `{ file }` and/or
   * `{ step }`, takes back only that file (as it was before `to`, or before the step) or only what
   * that step changed, and leaves the conversation where it is. Throws `entry_not_found`,
   * `session_busy`, `snapshot_failed`, `revert_refused` (a path outside the workspace) or
   * `revert_conflict` (files changed since in the same places) having changed nothing.
   */
  revert(sessionId: string, to?: string | RevertTarget, options?: SessionOpOptions): Promise<RevertResult>;
  /**
   * Undoes the latest revert on the active path not undone yet, also after later entries (then only
   * the revert's own change is taken back, and the conversation stays); `nothing_to_unrevert` when
   * there is none.
   */
  unrevert(sessionId: string, options?: SessionOpOptions): Promise<UnrevertResult>;
  /**
   * Every file the active path changed, from before its first step that changed files to after its
   * last, with diffs (from the steps' snapshots). Reads only. Throws `session_not_found`,
   * `revert_refused` (patches naming another workspace or unrecorded states).
   */
  diff(sessionId: string): Promise<SessionDiff>;
}
