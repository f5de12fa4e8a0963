import { join, resolve } from "node:path";
import type { TokenRecord } from "../../auth/tokens.js";
import { ArborError } from "../../errors.js";
import type { Entry, EntryInput, ThinkingLevel } from "../../model/entry.js";
import { assertSessionId } from "../../model/id-format.js";
import type { SessionInit, SessionMeta, SessionPatch } from "../../model/session.js";
import type { Snapshot } from "../../model/snapshot.js";
import type { PurgeMark } from "../../session/purge-entry.js";
import type { AskAnswer, AskInput, AskRecord, ListAsksOptions } from "../asks.js";
import type { EventInput, EventWindow, ListEventsOptions, StoredEvent } from "../event-records.js";
import type { SessionExport } from "../export-format.js";
import type { InboxMessage, InboxPage } from "../inbox.js";
import type { LeaseHolder, LeaseOptions, SessionLease } from "../lease.js";
import type { LivePath } from "../live-path.js";
import { decodeCursor, pageLimit } from "../session-page.js";
import type {
  AppendOptions,
  BranchSummaryInput,
  CompactionInput,
  EntryPatch,
  GoalTreeCache,
  ListSessionsOptions,
  MessageInput,
  SessionInfoInput,
  SessionPage,
  Store,
} from "../store.js";
import type { TokenStore } from "../tokens.js";
import type { FileStore } from "./file-store.js";
import type { FileStoreOptions } from "./file-store-options.js";
import { initSessionsRoot, sessionNames } from "./session-names.js";

/**
 * The file store as `openStore` hands it out: the store itself (its files, leases and the schemas
 * every stored record is validated with, which cost more start-up time than a short command has) loads
 * on the first call that reads or writes a record. Listing a store that holds no session reads none, so
 * `arbor sessions list` on an empty store loads none of it; anything stored is read, and validated, by
 * the FileStore as before.
 */
export class LazyFileStore implements Store {
  readonly provider = "file" as const;
  readonly tokens: TokenStore;
  private readonly root: string;
  private engine: Promise<FileStore> | undefined;
  /** The engine once loaded: the append calls go to it directly, without a wait on `engine` each. */
  private loaded: FileStore | undefined;
  private closed = false;

  private constructor(private readonly opts: FileStoreOptions) {
    this.root = join(resolve(opts.dir), "sessions");
    this.tokens = new LazyTokenStore(async () => (await this.store()).tokens);
  }

  /** Makes (and sweeps) the sessions directory at once, so a store that cannot be made fails at open as before. */
  static async open(opts: FileStoreOptions): Promise<LazyFileStore> {
    const store = new LazyFileStore(opts);
    initSessionsRoot(store.root);
    return store;
  }

  private store(): Promise<FileStore> {
    if (this.closed) return Promise.reject(new ArborError("store_closed", "The store is closed; open it again to use it."));
    this.engine ??= import("./file-store.js")
      .then((m) => m.FileStore.open(this.opts))
      .then((s) => {
        this.loaded = s;
        return s;
      });
    return this.engine;
  }

  /**
   * The loaded engine, or undefined until it is (or once this store is closed). The calls a run
   * makes per step use it to skip two turns of the microtask queue per call.
   */
  private ready(): FileStore | undefined {
    return this.closed ? undefined : this.loaded;
  }

  async listSessions(opts: ListSessionsOptions = {}): Promise<SessionPage> {
    if (this.engine === undefined && !this.closed) {
      // The checks the store makes first, so an empty store refuses what a full one would.
      pageLimit(opts.limit);
      if (opts.cursor !== undefined) decodeCursor(opts.cursor);
      if (typeof opts.parentSessionId === "string") assertSessionId(opts.parentSessionId);
      if (sessionNames(this.root).length === 0) return { sessions: [] };
    }
    return (await this.store()).listSessions(opts);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A store that failed to load has nothing to close; its failure was reported to the call that loaded it.
    await this.engine?.then(
      (s) => s.close(),
      () => undefined,
    );
  }

  async createSession(init?: SessionInit): Promise<SessionMeta> {
    return (await this.store()).createSession(init);
  }
  async getSession(id: string): Promise<SessionMeta | undefined> {
    return (await this.store()).getSession(id);
  }
  async updateSession(id: string, patch: SessionPatch): Promise<SessionMeta> {
    return (await this.store()).updateSession(id, patch);
  }
  async deleteSession(id: string): Promise<void> {
    return (await this.store()).deleteSession(id);
  }
  async listEntries(sessionId: string): Promise<Entry[]> {
    return (await this.store()).listEntries(sessionId);
  }
  async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    return (await this.store()).getEntry(sessionId, entryId);
  }
  appendEntry(sessionId: string, entry: EntryInput, opts?: Pick<AppendOptions, "prevalidated">): Promise<Entry> {
    return this.ready()?.appendEntry(sessionId, entry, opts) ?? this.store().then((s) => s.appendEntry(sessionId, entry, opts));
  }
  appendEntries(sessionId: string, entries: EntryInput[], opts?: Pick<AppendOptions, "prevalidated">): Promise<Entry[]> {
    return (
      this.ready()?.appendEntries(sessionId, entries, opts) ?? this.store().then((s) => s.appendEntries(sessionId, entries, opts))
    );
  }
  appendMessage(sessionId: string, message: MessageInput, opts?: AppendOptions): Promise<Entry> {
    return (
      this.ready()?.appendMessage(sessionId, message, opts) ?? this.store().then((s) => s.appendMessage(sessionId, message, opts))
    );
  }
  async appendThinkingLevelChange(sessionId: string, level: ThinkingLevel, opts?: AppendOptions): Promise<Entry> {
    return (await this.store()).appendThinkingLevelChange(sessionId, level, opts);
  }
  async appendModelChange(sessionId: string, model: string, opts?: AppendOptions): Promise<Entry> {
    return (await this.store()).appendModelChange(sessionId, model, opts);
  }
  async appendCompaction(sessionId: string, compaction: CompactionInput, opts?: AppendOptions): Promise<Entry> {
    return (await this.store()).appendCompaction(sessionId, compaction, opts);
  }
  async appendBranchSummary(sessionId: string, summary: BranchSummaryInput, opts?: AppendOptions): Promise<Entry> {
    return (await this.store()).appendBranchSummary(sessionId, summary, opts);
  }
  async appendLabelChange(sessionId: string, targetId: string, label: string | undefined, opts?: AppendOptions): Promise<Entry> {
    return (await this.store()).appendLabelChange(sessionId, targetId, label, opts);
  }
  async appendSessionInfo(sessionId: string, info: SessionInfoInput, opts?: AppendOptions): Promise<Entry> {
    return (await this.store()).appendSessionInfo(sessionId, info, opts);
  }
  async updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry> {
    return (await this.store()).updateEntry(sessionId, entryId, patch);
  }
  async purgeEntries(sessionId: string, entryIds: readonly string[], mark: PurgeMark): Promise<Entry[]> {
    return (await this.store()).purgeEntries(sessionId, entryIds, mark);
  }
  async switchLeaf(sessionId: string, entryId: string): Promise<SessionMeta> {
    return (await this.store()).switchLeaf(sessionId, entryId);
  }
  async resetLeaf(sessionId: string): Promise<SessionMeta> {
    return (await this.store()).resetLeaf(sessionId);
  }
  async createBranchedSession(sessionId: string, entryId: string, opts?: { createdBy?: string }): Promise<SessionMeta> {
    return (await this.store()).createBranchedSession(sessionId, entryId, opts);
  }
  async getActivePath(sessionId: string): Promise<Entry[]> {
    return (await this.store()).getActivePath(sessionId);
  }
  async getLivePath(sessionId: string): Promise<LivePath> {
    return (await this.store()).getLivePath(sessionId);
  }
  async getSnapshot(sessionId: string): Promise<Snapshot> {
    return (await this.store()).getSnapshot(sessionId);
  }
  async appendEvents(sessionId: string, events: EventInput[]): Promise<StoredEvent[]> {
    return (await this.store()).appendEvents(sessionId, events);
  }
  async purgeEvents(sessionId: string, window: EventWindow): Promise<number> {
    return (await this.store()).purgeEvents(sessionId, window);
  }
  async listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    return (await this.store()).listEvents(sessionId, opts);
  }
  async lastEventId(sessionId: string): Promise<number> {
    return (await this.store()).lastEventId(sessionId);
  }
  async postInbox(sessionId: string, text: string): Promise<InboxMessage> {
    return (await this.store()).postInbox(sessionId, text);
  }
  async readInbox(sessionId: string, after?: string): Promise<InboxPage> {
    return (await this.store()).readInbox(sessionId, after);
  }

  inboxMayHaveNew(sessionId: string, after: string): boolean {
    return this.loaded?.inboxMayHaveNew(sessionId, after) ?? true;
  }
  async createAsk(ask: AskInput): Promise<AskRecord> {
    return (await this.store()).createAsk(ask);
  }
  async getAsk(id: string): Promise<AskRecord | undefined> {
    return (await this.store()).getAsk(id);
  }
  async listAsks(opts?: ListAsksOptions): Promise<AskRecord[]> {
    return (await this.store()).listAsks(opts);
  }
  async answerAsk(id: string, answer: AskAnswer): Promise<AskRecord> {
    return (await this.store()).answerAsk(id, answer);
  }
  async cacheGoalTree(sessionId: string, cache: GoalTreeCache): Promise<void> {
    return (await this.store()).cacheGoalTree(sessionId, cache);
  }
  async acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease> {
    return (await this.store()).acquireLease(sessionId, purpose, options);
  }
  async leaseHolder(sessionId: string): Promise<LeaseHolder | undefined> {
    return (await this.store()).leaseHolder(sessionId);
  }
  async exportSession(sessionId: string): Promise<SessionExport> {
    return (await this.store()).exportSession(sessionId);
  }
  async importSession(data: SessionExport, opts?: { newId?: boolean }): Promise<SessionMeta> {
    return (await this.store()).importSession(data, opts);
  }
}

/** The store's tokens, reached through the store once it has loaded. */
class LazyTokenStore implements TokenStore {
  constructor(private readonly tokens: () => Promise<TokenStore>) {}

  async add(record: TokenRecord): Promise<TokenRecord> {
    return (await this.tokens()).add(record);
  }
  async list(): Promise<TokenRecord[]> {
    return (await this.tokens()).list();
  }
  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    return (await this.tokens()).findByHash(hash);
  }
  async revoke(id: string, at: string): Promise<TokenRecord> {
    return (await this.tokens()).revoke(id, at);
  }
}
