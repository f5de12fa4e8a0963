import { ArborError } from "../errors.js";
import type { Entry, EntryInput, ThinkingLevel } from "../model/entry.js";
import { assertEntryId, assertSessionId } from "../model/ids.js";
import {
  SESSION_FORMAT_VERSION,
  type SessionInit,
  type SessionMeta,
  type SessionPatch,
  type StoreProvider,
} from "../model/session.js";
import type { Snapshot } from "../model/snapshot.js";
import { parseOrThrow } from "../model/validate.js";
import type { PurgeMark } from "../session/purge-entry.js";
import { buildSnapshot, labelsByEntryId } from "../session/tree.js";
import { metaAfterBatch } from "./append-plan.js";
import type { AskAnswer, AskInput, AskRecord, ListAsksOptions } from "./asks.js";
import type { EventInput, EventWindow, ListEventsOptions, StoredEvent } from "./event-records.js";
import { type SessionExport, SessionExportSchema } from "./export-format.js";
import { INBOX_EVENT_TYPE, type InboxMessage, type InboxPage } from "./inbox.js";
import type { LeaseHolder, LeaseOptions, SessionLease } from "./lease.js";
import { CARRIED_FIELD, carriedIdsFor, type LivePath, livePathOf } from "./live-path.js";
import { referencedIds } from "./prepare.js";
import { assertNoParentCycle } from "./session-parents.js";
import type {
  AppendOptions,
  BranchSummaryInput,
  CompactionInput,
  EntryPatch,
  ListSessionsOptions,
  MessageInput,
  SessionInfoInput,
  SessionPage,
  Store,
} from "./store.js";
import type { TokenStore } from "./tokens.js";

/**
 * What every backend shares: the typed convenience appenders, branching, snapshots and export are
 * written once here in terms of the primitive operations each backend implements.
 */
export abstract class StoreBase implements Store {
  abstract readonly provider: StoreProvider;
  private lastCreatedMs = 0;

  /**
   * A new session's creation time. Sessions list newest first by it, so times handed out by one store
   * strictly increase: two sessions made in the same millisecond would otherwise tie and list in id order.
   */
  protected creationTime(): string {
    const ms = Math.max(Date.now(), this.lastCreatedMs + 1);
    this.lastCreatedMs = ms;
    return new Date(ms).toISOString();
  }

  abstract createSession(init?: SessionInit): Promise<SessionMeta>;
  abstract getSession(id: string): Promise<SessionMeta | undefined>;
  abstract updateSession(id: string, patch: SessionPatch): Promise<SessionMeta>;
  abstract deleteSession(id: string): Promise<void>;
  abstract listSessions(opts?: ListSessionsOptions): Promise<SessionPage>;
  abstract listEntries(sessionId: string): Promise<Entry[]>;
  abstract getEntry(sessionId: string, entryId: string): Promise<Entry | undefined>;
  /** Appends entries in order, all or none; `prevalidated` skips the schema check of each input. */
  protected abstract appendInputs(sessionId: string, inputs: readonly unknown[], prevalidated: boolean): Promise<Entry[]>;
  abstract updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry>;
  abstract purgeEntries(sessionId: string, entryIds: readonly string[], mark: PurgeMark): Promise<Entry[]>;
  abstract switchLeaf(sessionId: string, entryId: string): Promise<SessionMeta>;
  abstract resetLeaf(sessionId: string): Promise<SessionMeta>;
  abstract getActivePath(sessionId: string): Promise<Entry[]>;
  abstract appendEvents(sessionId: string, events: EventInput[]): Promise<StoredEvent[]>;
  abstract listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]>;
  abstract purgeEvents(sessionId: string, window: EventWindow): Promise<number>;
  abstract lastEventId(sessionId: string): Promise<number>;
  abstract acquireLease(sessionId: string, purpose: string, options?: LeaseOptions): Promise<SessionLease>;
  abstract leaseHolder(sessionId: string): Promise<LeaseHolder | undefined>;
  /** Writes meta and entries as one unit; the meta's id must be free. */
  protected abstract writeImported(meta: SessionMeta, entries: Entry[]): Promise<SessionMeta>;
  abstract close(): Promise<void>;
  abstract createAsk(ask: AskInput): Promise<AskRecord>;
  abstract getAsk(id: string): Promise<AskRecord | undefined>;
  abstract listAsks(opts?: ListAsksOptions): Promise<AskRecord[]>;
  abstract answerAsk(id: string, answer: AskAnswer): Promise<AskRecord>;
  abstract readonly tokens: TokenStore;

  /** The inbox as event log records, for backends whose event log takes appends from any process (SQL). */
  async postInbox(sessionId: string, text: string): Promise<InboxMessage> {
    const [record] = await this.appendEvents(sessionId, [{ type: INBOX_EVENT_TYPE, data: { text } }]);
    return { id: String(record!.id), text, at: record!.timestamp };
  }

  abstract readInbox(sessionId: string, after?: string): Promise<InboxPage>;

  appendEntries(sessionId: string, entries: EntryInput[], opts?: Pick<AppendOptions, "prevalidated">): Promise<Entry[]> {
    return this.appendInputs(sessionId, entries, opts?.prevalidated === true);
  }

  async appendEntry(sessionId: string, entry: EntryInput, opts?: Pick<AppendOptions, "prevalidated">): Promise<Entry> {
    const input = entry?.type === "compaction" ? await this.withCarried(sessionId, entry) : entry;
    const [appended] = await this.appendInputs(sessionId, [input], opts?.prevalidated === true);
    return appended as Entry;
  }

  /** The whole active path; stores that can read less override this (see `LivePath`). */
  async getLivePath(sessionId: string): Promise<LivePath> {
    return livePathOf(await this.getActivePath(sessionId));
  }

  /**
   * A compaction appended at the leaf records which earlier entries a continued run still needs, so
   * the next read of the live path stops at it. It is placed on the leaf it was computed for; one
   * placed elsewhere, or already carrying its list, is written as given.
   */
  private async withCarried(sessionId: string, entry: EntryInput & { type: "compaction" }): Promise<EntryInput> {
    if (CARRIED_FIELD in entry) return entry;
    const meta = await this.getSession(sessionId);
    if (!meta || (entry.parentId !== undefined && entry.parentId !== meta.leafEntryId)) return entry;
    const live = await this.getLivePath(sessionId);
    const leaf = live.entries.at(-1)?.id ?? null;
    if (leaf !== meta.leafEntryId) return entry;
    return { ...entry, parentId: leaf, [CARRIED_FIELD]: carriedIdsFor(live.entries) };
  }

  async appendMessage(sessionId: string, message: MessageInput, opts?: AppendOptions): Promise<Entry> {
    const content = typeof message?.content === "string" ? [{ type: "text", text: message.content }] : message?.content;
    const stored = { ...message, content };
    // A run's appends carry no placement: their input is built without copying the options less
    // `prevalidated` (an object rest copy, once per append).
    const placed = opts !== undefined && hasOtherKeys(opts);
    let input: Record<string, unknown> = { type: "message", message: stored };
    if (placed) {
      const { prevalidated: _, ...where } = opts;
      input = { ...where, ...input };
    }
    const [appended] = await this.appendInputs(sessionId, [input], opts?.prevalidated === true);
    return appended as Entry;
  }

  appendThinkingLevelChange(sessionId: string, level: ThinkingLevel, opts?: AppendOptions): Promise<Entry> {
    return this.appendEntry(sessionId, { ...opts, type: "thinking_level_change", thinkingLevel: level });
  }

  appendModelChange(sessionId: string, model: string, opts?: AppendOptions): Promise<Entry> {
    return this.appendEntry(sessionId, { ...opts, type: "model_change", model });
  }

  appendCompaction(sessionId: string, c: CompactionInput, opts?: AppendOptions): Promise<Entry> {
    return this.appendEntry(sessionId, { ...opts, ...c, type: "compaction" });
  }

  appendBranchSummary(sessionId: string, b: BranchSummaryInput, opts?: AppendOptions): Promise<Entry> {
    return this.appendEntry(sessionId, { ...opts, ...b, type: "branch_summary" });
  }

  appendLabelChange(sessionId: string, targetId: string, label: string | undefined, opts?: AppendOptions): Promise<Entry> {
    const entry: EntryInput = { ...opts, type: "label", targetId };
    if (label !== undefined) entry.label = label;
    return this.appendEntry(sessionId, entry);
  }

  appendSessionInfo(sessionId: string, info: SessionInfoInput, opts?: AppendOptions): Promise<Entry> {
    return this.appendEntry(sessionId, { ...opts, ...info, type: "session_info" });
  }

  protected async requireSession(id: string): Promise<SessionMeta> {
    assertSessionId(id);
    const meta = await this.getSession(id);
    if (!meta) throw new ArborError("session_not_found", `Session ${id} does not exist.`);
    return meta;
  }

  async getSnapshot(sessionId: string): Promise<Snapshot> {
    const session = await this.requireSession(sessionId);
    const entries = await this.listEntries(sessionId);
    const byId = new Map(entries.map((e) => [e.id, e]));
    const path: Entry[] = [];
    for (let id = session.leafEntryId; id !== null; ) {
      const e = byId.get(id);
      if (!e) throw new ArborError("corrupt_session", `Session ${sessionId}: entry ${id} on the active path is missing.`);
      path.push(e);
      id = e.parentId;
    }
    return buildSnapshot(session, entries, path.reverse());
  }

  async createBranchedSession(sessionId: string, entryId: string, opts?: { createdBy?: string }): Promise<SessionMeta> {
    const source = await this.requireSession(sessionId);
    assertEntryId(entryId);
    const target = await this.getEntry(sessionId, entryId);
    if (!target) throw new ArborError("entry_not_found", `Entry ${entryId} does not exist in session ${sessionId}.`);
    const all = await this.listEntries(sessionId);
    const byId = new Map(all.map((e) => [e.id, e]));
    const path: Entry[] = [];
    for (let id: string | null = entryId; id !== null; ) {
      const e = byId.get(id) as Entry;
      path.push(e);
      id = e.parentId;
    }
    path.reverse();
    const labels = labelsByEntryId(all);
    // Label entries are re-created from the resolved label state, so labels set after the fork
    // point (or off the path) on entries of the path come along, and none dangle.
    const kept = path.filter((e) => e.type !== "label");
    const inputs: EntryInput[] = [];
    let parentId: string | null = null;
    for (const e of kept) {
      inputs.push({ ...e, parentId });
      parentId = e.id;
    }
    const keptIds = new Set(kept.map((e) => e.id));
    for (const [target, label] of Object.entries(labels)) {
      if (keptIds.has(target)) inputs.push({ type: "label", targetId: target, label });
    }
    const meta = await this.createSession({
      cwd: source.cwd,
      agentId: source.agentId,
      title: source.title,
      mode: source.mode,
      agentType: source.agentType,
      ...(opts?.createdBy === undefined ? {} : { createdBy: opts.createdBy }),
    });
    try {
      if (inputs.length > 0) await this.appendEntries(meta.id, inputs);
      return await this.markBranched(meta.id, { sessionId, entryId });
    } catch (err) {
      await this.deleteSession(meta.id);
      throw err;
    }
  }

  /** Records where a branched session came from. */
  protected abstract markBranched(id: string, from: { sessionId: string; entryId: string }): Promise<SessionMeta>;

  async exportSession(sessionId: string): Promise<SessionExport> {
    const session = await this.requireSession(sessionId);
    const entries = await this.listEntries(sessionId);
    return { format: "arbor-session", version: SESSION_FORMAT_VERSION, session, entries };
  }

  async importSession(data: SessionExport, opts?: { newId?: boolean }): Promise<SessionMeta> {
    const parsed = parseOrThrow(SessionExportSchema, data, "session export");
    if (parsed.version > SESSION_FORMAT_VERSION) {
      throw new ArborError(
        "unsupported_version",
        `The export is format version ${parsed.version}; this Arbor reads up to ${SESSION_FORMAT_VERSION}. Upgrade Arbor.`,
      );
    }
    const meta = derivedMeta({ ...parsed.session, provider: this.provider, version: SESSION_FORMAT_VERSION }, parsed.entries);
    if (opts?.newId) meta.id = crypto.randomUUID();
    checkImportedTree(meta, parsed.entries);
    await this.assertParentAllowed(meta.id, meta.parentSessionId);
    return this.writeImported(meta, parsed.entries);
  }

  /** Refuses a parent session that would make `id` its own ancestor (see `assertNoParentCycle`). */
  protected assertParentAllowed(id: string, parentId: string | undefined): Promise<void> {
    return assertNoParentCycle(id, parentId, async (current) => {
      try {
        return (await this.getSession(current))?.parentSessionId;
      } catch {
        return undefined; // an unreadable session ends the chain; it cannot lead back through data we cannot see
      }
    });
  }
}

/** Root and totals come from the entries, not from what an export claims; the leaf and title are kept. */
function derivedMeta(meta: SessionMeta, entries: Entry[]): SessionMeta {
  const m = metaAfterBatch({ ...meta, rootEntryId: null, totalMessages: 0, totalTokens: 0, totalCost: 0 }, entries);
  return {
    ...m,
    leafEntryId: meta.leafEntryId,
    title: meta.title,
    updatedAt: meta.updatedAt > m.updatedAt ? meta.updatedAt : m.updatedAt,
  };
}

/**
 * An imported tree must be well formed: unique ids, parents before children, every other entry an
 * entry refers to (a label's target, a compaction's first kept entry) before it, leaf present.
 */
function checkImportedTree(meta: SessionMeta, entries: Entry[]): void {
  const seen = new Set<string>();
  for (const [i, e] of entries.entries()) {
    if (seen.has(e.id)) throw new ArborError("duplicate_entry", `Entry ${e.id} appears twice (entry ${i + 1}).`);
    if (e.parentId !== null && !seen.has(e.parentId)) {
      throw new ArborError(
        "parent_not_found",
        `Entry ${e.id} (entry ${i + 1}) has parent ${e.parentId}, which does not come before it.`,
      );
    }
    const missing = referencedIds(e).find((ref) => !seen.has(ref));
    if (missing !== undefined) {
      throw new ArborError(
        "entry_not_found",
        `Entry ${e.id} (entry ${i + 1}, ${e.type}) refers to entry ${missing}, which does not come before it.`,
      );
    }
    seen.add(e.id);
  }
  if (meta.leafEntryId !== null && !seen.has(meta.leafEntryId)) {
    throw new ArborError("entry_not_found", `The session's leaf ${meta.leafEntryId} is not among its entries.`);
  }
}

/** Whether append options carry more than `prevalidated` (what they carry goes into the entry input). */
function hasOtherKeys(opts: AppendOptions): boolean {
  for (const key in opts) if (key !== "prevalidated") return true;
  return false;
}
