import type { Entry, EntryInput, ThinkingLevel } from "../model/entry.js";
import type { SessionInit, SessionMeta, SessionPatch } from "../model/session.js";
import type { Snapshot } from "../model/snapshot.js";
import type { EventInput, ListEventsOptions, StoredEvent } from "../store/event-records.js";
import type { SessionExport } from "../store/export-format.js";
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
} from "../store/store.js";
import { messageSummary } from "./message-summary.js";
import type { WatchEventInput } from "./watch-events.js";

/** What the store needs of the hub: somewhere to publish. */
interface Publisher {
  publish(traceId: string, event: WatchEventInput): Promise<void>;
}

/**
 * A store that publishes `message_added` for every message entry appended through it, after the
 * append returned (so a watcher never hears of a message the session does not have yet). Everything
 * else is the wrapped store's. Publishing is not awaited: it is ordered per trace by the hub, and a
 * run never waits for, or fails because of, its watchers.
 */
export class WatchedStore implements Store {
  constructor(
    private readonly inner: Store,
    private readonly hub: Publisher,
  ) {}

  get provider() {
    return this.inner.provider;
  }

  private published<T extends Entry | Entry[]>(sessionId: string, appended: T): T {
    for (const entry of Array.isArray(appended) ? appended : [appended]) {
      const message = messageSummary(entry);
      if (message) void this.hub.publish(sessionId, { event: "message_added", message, affected_goals: [] });
    }
    return appended;
  }

  createSession(init?: SessionInit): Promise<SessionMeta> {
    return this.inner.createSession(init);
  }
  getSession(id: string): Promise<SessionMeta | undefined> {
    return this.inner.getSession(id);
  }
  updateSession(id: string, patch: SessionPatch): Promise<SessionMeta> {
    return this.inner.updateSession(id, patch);
  }
  deleteSession(id: string): Promise<void> {
    return this.inner.deleteSession(id);
  }
  listSessions(opts?: ListSessionsOptions): Promise<SessionPage> {
    return this.inner.listSessions(opts);
  }
  listEntries(sessionId: string): Promise<Entry[]> {
    return this.inner.listEntries(sessionId);
  }
  getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    return this.inner.getEntry(sessionId, entryId);
  }
  async appendEntry(sessionId: string, entry: EntryInput): Promise<Entry> {
    return this.published(sessionId, await this.inner.appendEntry(sessionId, entry));
  }
  async appendEntries(sessionId: string, entries: EntryInput[]): Promise<Entry[]> {
    return this.published(sessionId, await this.inner.appendEntries(sessionId, entries));
  }
  async appendMessage(sessionId: string, message: MessageInput, opts?: AppendOptions): Promise<Entry> {
    return this.published(sessionId, await this.inner.appendMessage(sessionId, message, opts));
  }
  appendThinkingLevelChange(sessionId: string, level: ThinkingLevel, opts?: AppendOptions): Promise<Entry> {
    return this.inner.appendThinkingLevelChange(sessionId, level, opts);
  }
  appendModelChange(sessionId: string, model: string, opts?: AppendOptions): Promise<Entry> {
    return this.inner.appendModelChange(sessionId, model, opts);
  }
  appendCompaction(sessionId: string, compaction: CompactionInput, opts?: AppendOptions): Promise<Entry> {
    return this.inner.appendCompaction(sessionId, compaction, opts);
  }
  appendBranchSummary(sessionId: string, summary: BranchSummaryInput, opts?: AppendOptions): Promise<Entry> {
    return this.inner.appendBranchSummary(sessionId, summary, opts);
  }
  appendLabelChange(sessionId: string, targetId: string, label: string | undefined, opts?: AppendOptions): Promise<Entry> {
    return this.inner.appendLabelChange(sessionId, targetId, label, opts);
  }
  appendSessionInfo(sessionId: string, info: SessionInfoInput, opts?: AppendOptions): Promise<Entry> {
    return this.inner.appendSessionInfo(sessionId, info, opts);
  }
  updateEntry(sessionId: string, entryId: string, patch: EntryPatch): Promise<Entry> {
    return this.inner.updateEntry(sessionId, entryId, patch);
  }
  switchLeaf(sessionId: string, entryId: string): Promise<SessionMeta> {
    return this.inner.switchLeaf(sessionId, entryId);
  }
  resetLeaf(sessionId: string): Promise<SessionMeta> {
    return this.inner.resetLeaf(sessionId);
  }
  createBranchedSession(sessionId: string, entryId: string): Promise<SessionMeta> {
    return this.inner.createBranchedSession(sessionId, entryId);
  }
  getActivePath(sessionId: string): Promise<Entry[]> {
    return this.inner.getActivePath(sessionId);
  }
  getSnapshot(sessionId: string): Promise<Snapshot> {
    return this.inner.getSnapshot(sessionId);
  }
  appendEvents(sessionId: string, events: EventInput[]): Promise<StoredEvent[]> {
    return this.inner.appendEvents(sessionId, events);
  }
  listEvents(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    return this.inner.listEvents(sessionId, opts);
  }
  exportSession(sessionId: string): Promise<SessionExport> {
    return this.inner.exportSession(sessionId);
  }
  importSession(data: SessionExport, opts?: { newId?: boolean }): Promise<SessionMeta> {
    return this.inner.importSession(data, opts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
