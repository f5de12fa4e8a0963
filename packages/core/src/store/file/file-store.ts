import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import { assertEntryId, assertSessionId } from "../../model/ids.js";
import type { SessionInit, SessionMeta, SessionPatch } from "../../model/session.js";
import type { Snapshot } from "../../model/snapshot.js";
import type { PurgeMark } from "../../session/purge-entry.js";
import { activePath, buildSnapshot } from "../../session/tree.js";
import type { AskAnswer, AskInput, AskRecord, ListAsksOptions } from "../asks.js";
import { StoreBase } from "../base.js";
import {
  DEFAULT_MAX_EVENTS_PER_SESSION,
  type EventInput,
  type EventWindow,
  type ListEventsOptions,
  type StoredEvent,
} from "../event-records.js";
import type { InboxMessage, InboxPage } from "../inbox.js";
import { DEFAULT_LEASE_TTL_MS, type LeaseHolder, type LeaseOptions, type SessionLease, sessionBusy } from "../lease.js";
import type { LivePath } from "../live-path.js";
import { MsClock } from "../ms-clock.js";
import { DEFAULT_MAX_ENTRY_BYTES } from "../prepare.js";
import { RandomPool } from "../random-pool.js";
import { applySessionPatch, decodeCursor, newSessionMeta, pageLimit } from "../session-meta.js";
import { descendantsDeepestFirst } from "../session-parents.js";
import { reconcileStatus } from "../session-status.js";
import type { Durability } from "../spec.js";
import type { EntryPatch, GoalTreeCache, ListSessionsOptions, SessionPage } from "../store.js";
import type { TokenStore } from "../tokens.js";
import { AskFiles } from "./ask-files.js";
import { DEFAULT_INDEX_FROM_BYTES } from "./entry-index.js";
import { EventFiles } from "./event-file.js";
import { FileEventLog } from "./file-event-log.js";
import { FileLeases } from "./file-leases.js";
import type { FileStoreOptions } from "./file-store-options.js";
import { InboxFiles } from "./inbox-files.js";
import { type OpenSession, OpenSessions } from "./open-sessions.js";
import { purgeSessionFile } from "./purge-file.js";
import { ENCODE_BUFFER_BYTES } from "./record-buffer.js";
import { batchRecord, leafRecord } from "./records.js";
import { SessionDirs } from "./session-dir.js";
import { allSessionMetas, pageOfSessions } from "./session-listing.js";
import { addWritten, getEntry, hasEntry, livePathOfState, replaceEntry, type SessionState, setLeaf } from "./session-state.js";
import { SessionWrites } from "./session-writes.js";
import { TokenFiles } from "./token-files.js";
import { importedText, prepareBatch, updatedEntry } from "./written-records.js";

/**
 * The local-first store: one directory per session with session.json (meta, rewritten atomically
 * and rarely) and entries.jsonl (append-only; leaf moves and entry updates are appended records).
 * session.json also records how many bytes of entries.jsonl its derived fields (leaf, totals)
 * account for, so a session can be listed without replaying its entries.
 */
export class FileStore extends StoreBase {
  readonly provider = "file" as const;
  private readonly dirs: SessionDirs;
  private readonly durability: Durability;
  private readonly maxEntryBytes: number;
  private readonly random = new RandomPool();
  /** Event log files; written and read through `log`, under the session's lock like its entries. */
  private readonly events: EventFiles;
  private readonly log: FileEventLog;
  private readonly inbox: InboxFiles;
  private readonly asks: AskFiles;
  readonly tokens: TokenStore;
  private readonly leases: FileLeases;
  private readonly sessions: OpenSessions;
  /** Every write to a session goes through here: one at a time, and safe against other processes. */
  private readonly writes: SessionWrites;
  private closed = false;
  private readonly clock = new MsClock();

  private constructor(opts: FileStoreOptions) {
    super();
    this.durability = opts.durability ?? "process";
    this.maxEntryBytes = opts.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    const root = join(resolve(opts.dir), "sessions");
    this.dirs = new SessionDirs(root, this.durability === "fsync");
    this.inbox = new InboxFiles(root, this.durability === "fsync", this.maxEntryBytes);
    const maxEvents = opts.maxEventsPerSession ?? DEFAULT_MAX_EVENTS_PER_SESSION;
    // One buffer for the entries' and the event log's encoding: each is used only within a synchronous write.
    const encode = Buffer.allocUnsafe(ENCODE_BUFFER_BYTES);
    this.events = new EventFiles(root, this.durability, maxEvents, (id) => this.leases.token(id), encode);
    this.asks = new AskFiles(join(resolve(opts.dir), "asks"), this.durability === "fsync");
    this.tokens = new TokenFiles(join(resolve(opts.dir), "tokens"), this.durability === "fsync");
    this.leases = new FileLeases(join(resolve(opts.dir), "leases"), opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS);
    this.sessions = new OpenSessions(this.dirs, {
      durability: this.durability,
      cacheSize: opts.cacheSize ?? 64,
      indexFromBytes: opts.indexFromBytes ?? DEFAULT_INDEX_FROM_BYTES,
      settled: (id) => this.writes.settled(id),
      leased: (id) => this.leases.holds(id),
      encode,
    });
    this.writes = new SessionWrites(
      this.leases,
      this.sessions,
      this.dirs,
      (id) => this.load(id),
      (id) => {
        this.events.leaseEnded(id);
        this.inbox.watch.end(id);
      },
    );
    this.log = new FileEventLog(this.events, this.writes, (id) => this.load(id), this.maxEntryBytes);
  }

  static async open(opts: FileStoreOptions): Promise<FileStore> {
    const store = new FileStore(opts);
    store.dirs.init();
    store.leases.init();
    store.asks.init();
    return store;
  }

  private load(id: string): Promise<OpenSession> {
    this.ensureOpen();
    return this.sessions.load(id);
  }

  /** Throws unless the store is open (and `sessionId`, when given, is a valid session id). */
  private ensureOpen(sessionId?: string): void {
    if (this.closed) throw new ArborError("store_closed", "The store is closed; open it again to use it.");
    if (sessionId !== undefined) assertSessionId(sessionId);
  }

  private now(): string {
    return this.clock.now();
  }

  async createSession(init?: SessionInit): Promise<SessionMeta> {
    this.ensureOpen();
    const id = init?.id ?? randomUUID();
    assertSessionId(id);
    const meta = newSessionMeta(init, "file", id, this.creationTime());
    await this.assertParentAllowed(id, meta.parentSessionId);
    return this.writes.lock.run(id, async () => {
      await this.dirs.create(meta, "");
      this.sessions.created(id, { ...meta });
      this.events.created(id);
      return { ...meta };
    });
  }

  async getSession(id: string): Promise<SessionMeta | undefined> {
    this.ensureOpen(id);
    const cached = this.sessions.current(id);
    if (cached) return this.liveStatus({ ...cached.state.meta });
    const found = this.dirs.readMeta(id);
    if (!found) return undefined;
    // session.json accounts for entries.jsonl up to entriesBytes; if more was written since
    // (a crash before the meta was written back), replay the session to get exact values.
    const size = this.dirs.entriesSize(id);
    if (size === found.entriesBytes) return this.liveStatus(found.meta);
    return this.liveStatus({ ...(await this.load(id)).state.meta });
  }

  /** A session marked running whose driver is gone reads as interrupted (see `reconcileStatus`). */
  private liveStatus(meta: SessionMeta): SessionMeta {
    return reconcileStatus(
      meta,
      (id) => this.leases.holder(id) !== undefined,
      (id) => this.storedParent(id),
    );
  }

  private storedParent(id: string): string | undefined {
    try {
      return (this.sessions.cache.get(id)?.state.meta ?? this.dirs.readMeta(id)?.meta)?.parentSessionId;
    } catch {
      return undefined;
    }
  }

  async acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease> {
    this.ensureOpen(sessionId);
    return this.writes.acquireLease(sessionId, purpose, options);
  }

  async leaseHolder(sessionId: string): Promise<LeaseHolder | undefined> {
    this.ensureOpen(sessionId);
    return this.leases.holder(sessionId);
  }

  /** goal.json, the readable copy of the plan, written before this returns a promise, so successive calls land in call order. */
  async cacheGoalTree(id: string, cache: GoalTreeCache): Promise<void> {
    this.ensureOpen(id);
    if (!this.dirs.writeGoalTree(id, cache)) throw new ArborError("session_not_found", `Session ${id} does not exist.`);
  }

  async updateSession(id: string, patch: SessionPatch): Promise<SessionMeta> {
    return this.writes.locked(id, (s) => {
      s.state.meta = applySessionPatch(s.state.meta, patch, this.now());
      this.sessions.writeMeta(s);
      return { value: { ...s.state.meta }, synced: null };
    });
  }

  protected async markBranched(id: string, from: { sessionId: string; entryId: string }): Promise<SessionMeta> {
    return this.writes.locked(id, (s) => {
      s.state.meta = { ...s.state.meta, branchedFrom: from };
      this.sessions.writeMeta(s);
      return { value: { ...s.state.meta }, synced: null };
    });
  }

  async deleteSession(id: string): Promise<void> {
    this.ensureOpen(id);
    // Nothing of the session is read, so one whose entries or session.json are damaged can still be deleted.
    if (!this.sessions.cache.has(id) && !this.dirs.has(id))
      throw new ArborError("session_not_found", `Session ${id} does not exist.`);
    // Deepest first, then the session itself; the walk is bounded, so a parent loop cannot hold it.
    const tree = [...descendantsDeepestFirst(await this.allMetas(), id), id];
    // Nothing is deleted while a run drives any session of the tree, in this process or another.
    for (const sid of tree) {
      const holder = this.leases.holder(sid);
      if (holder) throw sessionBusy(sid, holder);
    }
    for (const sid of tree) await this.writes.remove(sid, () => this.events.forget(sid));
    for (const sid of tree) this.asks.deleteSession(sid);
  }

  private allMetas(): Promise<SessionMeta[]> {
    return allSessionMetas(this.dirs, (id) => this.getSession(id));
  }

  async listSessions(opts: ListSessionsOptions = {}): Promise<SessionPage> {
    this.ensureOpen();
    const limit = pageLimit(opts.limit);
    const cursor = opts.cursor === undefined ? undefined : decodeCursor(opts.cursor);
    if (typeof opts.parentSessionId === "string") assertSessionId(opts.parentSessionId);
    return pageOfSessions(await this.allMetas(), { parent: opts.parentSessionId, cwd: opts.cwd }, cursor, limit);
  }

  /** A session with every entry in memory, for the reads that need the whole tree. */
  private async loadWhole(id: string): Promise<{ state: SessionState & { entries: Entry[] } }> {
    const s = await this.load(id);
    return { state: this.sessions.whole(s) };
  }

  async listEntries(sessionId: string): Promise<Entry[]> {
    assertSessionId(sessionId);
    return (await this.loadWhole(sessionId)).state.entries.slice();
  }

  /** Through the index when the session was resumed by it: only the live path's records are read. */
  override async getLivePath(sessionId: string): Promise<LivePath> {
    assertSessionId(sessionId);
    return livePathOfState((await this.load(sessionId)).state);
  }

  async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    assertSessionId(sessionId);
    assertEntryId(entryId);
    return getEntry((await this.load(sessionId)).state, entryId);
  }

  protected appendInputs(sessionId: string, inputs: readonly unknown[], prevalidated: boolean): Promise<Entry[]> {
    if (!Array.isArray(inputs))
      return Promise.reject(new ArborError("invalid_input", "appendEntries takes an array of entries."));
    return this.writes.locked(sessionId, (s) => {
      if (inputs.length === 0) return { value: [], synced: null };
      const limits = { now: this.now(), random: this.random, maxEntryBytes: this.maxEntryBytes, prevalidated };
      const prepared = prepareBatch(s.id, s.state, inputs, limits);
      const head = prepared.length > 1 ? batchRecord(prepared.length) : "";
      const { offset, lengths, synced } = this.sessions.writeEntryLines(
        s,
        head,
        prepared.map((p) => p.json),
      );
      addWritten(s.state, prepared, offset, lengths);
      return { value: prepared.map((p) => p.entry), synced };
    });
  }

  async updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry> {
    assertEntryId(entryId);
    return this.writes.locked(sessionId, (s) => {
      const { after, record } = updatedEntry(sessionId, s.state, entryId, patch, this.maxEntryBytes);
      const offset = s.state.bytes;
      const { length, synced } = this.sessions.writeRecords(s, record);
      replaceEntry(s.state, after, { offset, length, parentId: after.parentId, update: true });
      return { value: after, synced };
    });
  }

  async purgeEntries(sessionId: string, entryIds: readonly string[], mark: PurgeMark): Promise<Entry[]> {
    for (const id of entryIds) assertEntryId(id);
    return this.writes.locked(sessionId, (s) => ({
      value: purgeSessionFile(s, this.sessions, this.dirs.indexFile(sessionId), entryIds, mark),
      synced: null,
    }));
  }

  async switchLeaf(sessionId: string, entryId: string): Promise<SessionMeta> {
    assertEntryId(entryId);
    return this.moveLeaf(sessionId, entryId);
  }

  async resetLeaf(sessionId: string): Promise<SessionMeta> {
    return this.moveLeaf(sessionId, null);
  }

  private moveLeaf(sessionId: string, leafId: string | null): Promise<SessionMeta> {
    return this.writes.locked(sessionId, (s) => {
      if (leafId !== null && !hasEntry(s.state, leafId)) {
        throw new ArborError("entry_not_found", `Entry ${leafId} does not exist in session ${sessionId}.`);
      }
      const ts = this.now();
      const { synced } = this.sessions.writeRecords(s, leafRecord(leafId, ts));
      setLeaf(s.state, leafId, ts);
      return { value: { ...s.state.meta }, synced };
    });
  }

  async getActivePath(sessionId: string): Promise<Entry[]> {
    assertSessionId(sessionId);
    const { state } = await this.loadWhole(sessionId);
    return activePath(state.meta.leafEntryId, (id) => getEntry(state, id));
  }

  override async getSnapshot(sessionId: string): Promise<Snapshot> {
    assertSessionId(sessionId);
    const { state } = await this.loadWhole(sessionId);
    const path = activePath(state.meta.leafEntryId, (id) => getEntry(state, id));
    return buildSnapshot(this.liveStatus({ ...state.meta }), state.entries, path);
  }

  async appendEvents(sessionId: string, inputs: EventInput[]): Promise<StoredEvent[]> {
    this.ensureOpen();
    return this.log.append(sessionId, inputs);
  }

  async purgeEvents(sessionId: string, window: EventWindow): Promise<number> {
    this.ensureOpen();
    return this.log.purge(sessionId, window);
  }

  async listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    this.ensureOpen();
    return this.log.list(sessionId, opts);
  }

  /** Its own files, not the event log: a process that does not hold the lease may leave a message. */
  override async postInbox(sessionId: string, text: string): Promise<InboxMessage> {
    this.ensureOpen(sessionId);
    this.inbox.checkSize(text);
    await this.requireSession(sessionId);
    return this.inbox.post(sessionId, text, new Date());
  }

  override async readInbox(sessionId: string, after?: string): Promise<InboxPage> {
    this.ensureOpen(sessionId);
    await this.requireSession(sessionId);
    return this.inbox.read(sessionId, after, this.leases.holds(sessionId));
  }

  /** A boolean a step asks instead of reading the folder (see InboxWatch); true once closed, so the read says so. */
  inboxMayHaveNew(sessionId: string, after: string): boolean {
    return this.closed || this.inbox.watch.mayHaveNew(sessionId, after);
  }

  /** Its own folder beside the sessions': any process may ask or answer, whoever holds the session. */
  async createAsk(ask: AskInput): Promise<AskRecord> {
    this.ensureOpen();
    return this.asks.create(ask);
  }

  async getAsk(id: string): Promise<AskRecord | undefined> {
    this.ensureOpen();
    return this.asks.get(id);
  }

  async listAsks(opts?: ListAsksOptions): Promise<AskRecord[]> {
    this.ensureOpen();
    return this.asks.list(opts);
  }

  async answerAsk(id: string, answer: AskAnswer): Promise<AskRecord> {
    this.ensureOpen();
    return this.asks.answer(id, answer);
  }

  async lastEventId(sessionId: string): Promise<number> {
    this.ensureOpen();
    return this.log.lastId(sessionId);
  }

  protected async writeImported(meta: SessionMeta, entries: Entry[]): Promise<SessionMeta> {
    this.ensureOpen();
    assertSessionId(meta.id);
    const ts = meta.updatedAt;
    const text = importedText(entries, meta.leafEntryId, ts);
    const base = { ...meta, rootEntryId: null, leafEntryId: null, totalMessages: 0, totalTokens: 0, totalCost: 0 };
    // No bytes accounted marks session.json stale: the first read derives leaf and totals from the entries.
    await this.writes.lock.run(meta.id, () => this.dirs.create({ ...base, provider: "file" }, text, -1));
    return (await this.getSession(meta.id)) as SessionMeta;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.lock.drain();
    this.leases.endBursts(); // write locks kept for a burst go back first, their index lines written under them
    for (const s of this.sessions.cache.values()) this.sessions.release(s);
    this.sessions.cache.clear();
    this.events.closeAll();
    this.inbox.watch.endAll();
    await this.leases.releaseAll();
  }
}

export function openFileStore(opts: FileStoreOptions): Promise<FileStore> {
  return FileStore.open(opts);
}
