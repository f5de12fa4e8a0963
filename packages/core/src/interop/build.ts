import type { Entry } from "../model/entry.js";
import { SESSION_FORMAT_VERSION, type SessionMeta } from "../model/session.js";
import type { SessionExport } from "../store/export-format.js";
import { addSkip, type ImportOrigin, type SkipCounts } from "./types.js";

/** Entry fields without the tree position the builder fills in. */
export type EntryBody = Entry extends infer E ? (E extends Entry ? Omit<E, "id" | "parentId" | "timestamp"> : never) : never;

export interface SessionHead {
  id: string;
  origin: ImportOrigin;
  title?: string;
  cwd?: string;
  task?: string;
  agentType?: string;
  parentSessionId?: string;
  status?: SessionMeta["status"];
}

/**
 * Assembles one imported session: entries keep their source ids and parents, lines that were left
 * out are bridged (a child of a skipped line hangs on what the skipped line hung on), and the result
 * is ordered parents-first as the store requires. Pure.
 */
export class SessionBuilder {
  private readonly entries: Entry[] = [];
  private readonly ids = new Set<string>();
  /** Skipped source ids → the entry (or null: a root) that stands in for them. */
  private readonly bridges = new Map<string, string | null>();
  private lastTime: string;

  constructor(
    private readonly head: SessionHead,
    private readonly skipped: SkipCounts,
    private readonly startedAt: string,
  ) {
    this.lastTime = startedAt;
  }

  get size(): number {
    return this.entries.length;
  }

  get last(): Entry | undefined {
    return this.entries.at(-1);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Where a reference to `sourceId` lands after skipped lines are bridged; undefined when unknown. */
  resolve(sourceId: string | null | undefined): string | null | undefined {
    if (sourceId === null || sourceId === undefined) return null;
    const seen = new Set<string>();
    let current: string | null | undefined = sourceId;
    while (current !== null && current !== undefined && !this.ids.has(current)) {
      if (seen.has(current)) return undefined;
      seen.add(current);
      current = this.bridges.has(current) ? this.bridges.get(current) : undefined;
    }
    return current;
  }

  /** Records that the line `sourceId` (child of `parentSourceId`) was left out. */
  bridge(sourceId: string | undefined, parentSourceId: string | null | undefined): void {
    if (sourceId === undefined) return;
    const target = this.resolve(parentSourceId);
    this.bridges.set(sourceId, target === undefined ? (this.last?.id ?? null) : target);
  }

  /**
   * Appends an entry under `parentId` (a source id, bridged if it was skipped). A parent that is
   * nowhere in the file makes the entry a new root, counted in the skip summary.
   */
  add(id: string, parentId: string | null | undefined, timestamp: string | undefined, body: EntryBody): Entry {
    let parent = this.resolve(parentId);
    if (parent === undefined) {
      addSkip(this.skipped, "parent missing from the file (entry kept as a new root)");
      parent = null;
    }
    const at = timestamp ?? this.lastTime;
    if (at > this.lastTime) this.lastTime = at;
    const entry = { ...body, id, parentId: parent, timestamp: at } as Entry;
    this.entries.push(entry);
    this.ids.add(id);
    return entry;
  }

  /** A fresh id derived from `base` that no entry has yet. */
  uniqueId(base: string): string {
    if (!this.ids.has(base)) return base;
    for (let n = 2; ; n++) if (!this.ids.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  finish(leafEntryId?: string | null): SessionExport {
    const entries = parentsFirst(this.entries);
    const first = entries.reduce<string | undefined>(
      (min, e) => (min === undefined || e.timestamp < min ? e.timestamp : min),
      undefined,
    );
    const createdAt = first === undefined || this.startedAt < first ? this.startedAt : first;
    const leaf = leafEntryId !== undefined ? leafEntryId : (this.entries.at(-1)?.id ?? null);
    const h = this.head;
    const session: SessionMeta & { importedFrom: ImportOrigin } = {
      version: SESSION_FORMAT_VERSION,
      id: h.id,
      // The store writing the session puts its own provider here.
      provider: "file",
      createdAt,
      updatedAt: this.lastTime > createdAt ? this.lastTime : createdAt,
      rootEntryId: entries[0]?.id ?? null,
      leafEntryId: leaf,
      mode: "agent",
      agentType: h.agentType ?? "main",
      totalMessages: 0,
      totalTokens: 0,
      totalCost: 0,
      status: h.status ?? "completed",
      importedFrom: h.origin,
      ...(h.title !== undefined ? { title: h.title.slice(0, 500) } : {}),
      ...(h.cwd !== undefined ? { cwd: h.cwd } : {}),
      ...(h.task !== undefined ? { task: h.task } : {}),
      ...(h.parentSessionId !== undefined ? { parentSessionId: h.parentSessionId } : {}),
    };
    return { format: "arbor-session", version: SESSION_FORMAT_VERSION, session, entries };
  }
}

/**
 * File order, except that an entry whose parent comes later waits until its parent is placed: the
 * store requires parents first, and most files already are, so most files keep their order.
 */
function parentsFirst(entries: Entry[]): Entry[] {
  const ids = new Set(entries.map((e) => e.id));
  const placed = new Set<string>();
  const waiting = new Map<string, Entry[]>();
  const out: Entry[] = [];
  const place = (first: Entry) => {
    const queue = [first];
    for (let i = 0; i < queue.length; i++) {
      const e = queue[i] as Entry;
      placed.add(e.id);
      out.push(e);
      const kids = waiting.get(e.id);
      if (kids) {
        waiting.delete(e.id);
        queue.push(...kids);
      }
    }
  };
  for (const e of entries) {
    if (e.parentId !== null && ids.has(e.parentId) && !placed.has(e.parentId)) {
      const list = waiting.get(e.parentId);
      if (list) list.push(e);
      else waiting.set(e.parentId, [e]);
      continue;
    }
    place(e);
  }
  return out;
}
