import type { Entry, EntryInput, ThinkingLevel } from "../model/entry.js";
import type { Message } from "../model/message.js";
import type { Part } from "../model/parts.js";
import type { SessionInit, SessionMeta, SessionPatch, StoreProvider } from "../model/session.js";
import type { Snapshot } from "../model/snapshot.js";
import type { PurgeMark } from "../session/purge-entry.js";
import type { AskAnswer, AskInput, AskRecord, ListAsksOptions } from "./asks.js";
import type { EventInput, EventWindow, ListEventsOptions, StoredEvent } from "./event-records.js";
import type { SessionExport } from "./export-format.js";
import type { InboxMessage, InboxPage } from "./inbox.js";
import type { LeaseHolder, LeaseOptions, SessionLease } from "./lease.js";
import type { LivePath } from "./live-path.js";
import type { TokenStore } from "./tokens.js";

/** Raw SQL over a store's open transaction (the shape pg-boss takes as its `db` option). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface ListSessionsOptions {
  /** Page size, 1-1000 (default 50). */
  limit?: number;
  /** `nextCursor` from the previous page. */
  cursor?: string;
  /** A session id lists its sub-sessions; `null` lists only top-level sessions; absent lists all. */
  parentSessionId?: string | null;
  /** Only sessions whose workspace (`cwd` in their meta) is exactly this directory. */
  cwd?: string;
}

/** What `goal.json` holds: the plan as of the entry that last changed it. */
export interface GoalTreeCache {
  /** The leaf when the plan last changed; the tree on another branch may differ. */
  leafEntryId: string | null;
  tree: unknown;
}

export interface SessionPage {
  sessions: SessionMeta[];
  nextCursor?: string;
}

/** Where an append goes: `parentId` defaults to the leaf; `null` starts a new root. */
export interface AppendOptions {
  parentId?: string | null;
  id?: string;
  /**
   * The caller built the message itself from typed values (the loop's own assistant messages and
   * records), or checked it as the schema would, so the store skips re-checking it against the
   * schema. Never set for input that came from outside unchecked.
   */
  prevalidated?: boolean;
}

/** A message as callers write it: `content` may be plain text. */
export type MessageInput = Omit<Message, "content"> & { content: string | Part[] };

export type CompactionInput = {
  summary: string;
  firstKeptEntryId: string | null;
  tokensBefore: number;
  details?: unknown;
};

export type BranchSummaryInput = { fromId: string; summary: string; details?: unknown };
export type SessionInfoInput = { title?: string; info?: Record<string, unknown> };
export type EntryPatch = Record<string, unknown>;

/**
 * A session-tree store (SPEC section 2). Every method validates its ids and input first and
 * changes nothing when it throws. A missing session is `undefined` from `getSession` and an
 * `ArborError` with code `session_not_found` everywhere else.
 */
export interface Store {
  readonly provider: StoreProvider;

  createSession(init?: SessionInit): Promise<SessionMeta>;
  getSession(id: string): Promise<SessionMeta | undefined>;
  updateSession(id: string, patch: SessionPatch): Promise<SessionMeta>;
  /** Deletes the session, its entries and, recursively, its sub-sessions. */
  deleteSession(id: string): Promise<void>;
  /** Newest first (by creation time). */
  listSessions(opts?: ListSessionsOptions): Promise<SessionPage>;

  /** Every entry of the session in append order. */
  listEntries(sessionId: string): Promise<Entry[]>;
  getEntry(sessionId: string, entryId: string): Promise<Entry | undefined>;
  /** Appends one entry; the leaf moves to it. `prevalidated` as in AppendOptions. */
  appendEntry(sessionId: string, entry: EntryInput, opts?: Pick<AppendOptions, "prevalidated">): Promise<Entry>;
  /** Appends entries in order, all or none; the leaf ends on the last one. `prevalidated` as in AppendOptions, for all of them. */
  appendEntries(sessionId: string, entries: EntryInput[], opts?: Pick<AppendOptions, "prevalidated">): Promise<Entry[]>;
  appendMessage(sessionId: string, message: MessageInput, opts?: AppendOptions): Promise<Entry>;
  appendThinkingLevelChange(sessionId: string, level: ThinkingLevel, opts?: AppendOptions): Promise<Entry>;
  appendModelChange(sessionId: string, model: string, opts?: AppendOptions): Promise<Entry>;
  appendCompaction(sessionId: string, compaction: CompactionInput, opts?: AppendOptions): Promise<Entry>;
  appendBranchSummary(sessionId: string, summary: BranchSummaryInput, opts?: AppendOptions): Promise<Entry>;
  /** Sets (`label` given) or clears (`undefined`) the label of `targetId`. */
  appendLabelChange(sessionId: string, targetId: string, label: string | undefined, opts?: AppendOptions): Promise<Entry>;
  appendSessionInfo(sessionId: string, info: SessionInfoInput, opts?: AppendOptions): Promise<Entry>;
  /** Replaces fields of an entry; `id`, `parentId`, `type` and `timestamp` cannot change. */
  updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry>;
  /**
   * Erases message entries for good (a GDPR deletion): each is replaced, wherever the store keeps it
   * (every past version included), by its tombstone (`tombstoneOf`: id, parent, type, time, role and a
   * `purged` mark), so the tree keeps its shape and ids and nothing the messages said stays in the store.
   * All or none: throws `entry_not_found` (or `invalid_input` for an entry that is not a message)
   * having changed nothing. Returns the tombstones.
   */
  purgeEntries(sessionId: string, entryIds: readonly string[], mark: PurgeMark): Promise<Entry[]>;

  /** Moves the leaf (persisted). */
  switchLeaf(sessionId: string, entryId: string): Promise<SessionMeta>;
  /** Clears the leaf (persisted): the next append starts a new root. */
  resetLeaf(sessionId: string): Promise<SessionMeta>;
  /** A new session holding the path root → `entryId` and the labels on it; `createdBy` names who made it. */
  createBranchedSession(sessionId: string, entryId: string, opts?: { createdBy?: string }): Promise<SessionMeta>;
  getActivePath(sessionId: string): Promise<Entry[]>;
  /**
   * What a continued run needs of the active path: from the latest compaction (and what it keeps) to
   * the leaf, plus the earlier entries it carried. Costs what the live context costs, not the tree.
   */
  getLivePath(sessionId: string): Promise<LivePath>;
  getSnapshot(sessionId: string): Promise<Snapshot>;

  /**
   * Appends to the session's event log, all or none: ids continue strictly increasing from
   * the last, never reused. Deleting the session deletes its log; past `maxEventsPerSession` the
   * oldest records are dropped.
   */
  appendEvents(sessionId: string, events: EventInput[]): Promise<StoredEvent[]>;
  /**
   * SQL stores only: appends events (creating the session first when `create` is given) and runs
   * `within` in the same transaction over the same connection, so what it writes (a queued job)
   * commits or rolls back with them. Nothing is written when either fails.
   */
  appendEventsWithin?(
    sessionId: string,
    events: EventInput[],
    within: (sql: SqlExecutor) => Promise<void>,
    create?: SessionInit,
  ): Promise<StoredEvent[]>;
  /**
   * Blanks the event log records stamped in `[from, to)` (no `to`: up to now): each keeps its id,
   * type and time, and its data becomes `{ purged: true }`, so readers resuming by id stay in step
   * while what the records said (a deleted message streamed, echoed in a tool call) is gone.
   * Returns how many were blanked. Erasing a message uses it for the runs that wrote it.
   */
  purgeEvents(sessionId: string, window: EventWindow): Promise<number>;
  /** Records after `after`, oldest first. */
  listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]>;
  /** The newest record's id (0 for an empty log): where a reader that starts now has caught up. */
  lastEventId(sessionId: string): Promise<number>;

  /**
   * Leaves a message in the session's inbox for the process that drives it; taken from any process,
   * also while another holds the session's lease. Throws `session_not_found`, `entry_too_large`.
   */
  postInbox(sessionId: string, text: string): Promise<InboxMessage>;
  /**
   * Inbox messages after `after`, oldest first; without `after`, none, and the cursor of the inbox
   * as it stands (a driver starting now reads from there).
   */
  readInbox(sessionId: string, after?: string): Promise<InboxPage>;
  /**
   * False when the store knows the session's inbox holds nothing after `after` without reading it (a
   * store driving the session may watch its inbox), so a step may skip the read; true when it may, or
   * the store cannot tell. A message left is seen within a few tens of milliseconds at most. A store
   * without this is read every step.
   */
  inboxMayHaveNew?(sessionId: string, after: string): boolean;

  /**
   * Records an ask a run waits on (see `AskRecord`), from any process, also while another holds
   * the session's lease. Throws `invalid_input`, and `ask_exists`-shaped `invalid_input` for a taken id.
   */
  createAsk(ask: AskInput): Promise<AskRecord>;
  getAsk(id: string): Promise<AskRecord | undefined>;
  /** Every process's asks, oldest first. */
  listAsks(opts?: ListAsksOptions): Promise<AskRecord[]>;
  /**
   * Answers an ask exactly once, from any process: a compare-and-set. Throws `ask_not_found`,
   * `ask_already_answered` (a second answer, also one racing on another machine) or `ask_expired`
   * (`answer.at` at or after the ask's `expiresAt`), having changed nothing.
   */
  answerAsk(id: string, answer: AskAnswer): Promise<AskRecord>;

  /** API tokens (hashes, never tokens), kept beside the sessions; see `TokenStore`. */
  readonly tokens: TokenStore;

  /**
   * Stores that keep a readable copy of a session's plan (the file store's `goal.json`)
   * implement this; the plan itself lives in the session tree, so a failure here loses nothing.
   */
  cacheGoalTree?(sessionId: string, cache: GoalTreeCache): Promise<void>;

  /**
   * Takes the session's lease: one driver per session across processes and machines. While it is
   * held, writes to the session from other processes (appends, leaf moves, updates, deletes) fail
   * with `session_busy`, and so does a second `acquireLease` anywhere (this store included); the
   * error names the holder. A holder that died loses its lease: at once when its pid is gone on the
   * same host, otherwise once it missed its heartbeats for the lease's lifetime. The session need not
   * exist yet (a run takes the lease before it creates its session).
   */
  acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease>;
  /** Who holds the session's lease, if anyone alive does. */
  leaseHolder(sessionId: string): Promise<LeaseHolder | undefined>;

  exportSession(sessionId: string): Promise<SessionExport>;
  /** Writes a whole exported session at once; fails with `session_exists` unless `newId` is set. */
  importSession(data: SessionExport, opts?: { newId?: boolean }): Promise<SessionMeta>;

  close(): Promise<void>;
}
