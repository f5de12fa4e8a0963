import { ArborError } from "../../errors.js";
import { type Entry, EntrySchema, isEntryType } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { describeIssues } from "../../model/validate.js";
import { migrateEntry } from "../../session/migrate.js";
import { metaAfterAppend, metaAfterUpdate, referencedIds } from "../prepare.js";
import { type JsonlLine, scanJsonl } from "./jsonl-reader.js";
import { ControlRecordSchema } from "./records.js";

/** One session held in memory by the file store: every entry plus an id index. */
export interface SessionState {
  meta: SessionMeta;
  entries: Entry[];
  index: Map<string, number>;
  /** Bytes of entries.jsonl that hold complete records. */
  bytes: number;
  /** Bytes past `bytes` that belong to a torn write and are moved aside before the next append. */
  tornBytes: number;
}

export function emptyState(meta: SessionMeta): SessionState {
  return { meta, entries: [], index: new Map(), bytes: 0, tornBytes: 0 };
}

export function hasEntry(state: SessionState, id: string): boolean {
  return state.index.has(id);
}

export function getEntry(state: SessionState, id: string): Entry | undefined {
  const i = state.index.get(id);
  return i === undefined ? undefined : state.entries[i];
}

/** Adds an entry already checked against the tree. */
export function addEntry(state: SessionState, entry: Entry): void {
  state.index.set(entry.id, state.entries.length);
  state.entries.push(entry);
  state.meta = metaAfterAppend(state.meta, entry);
}

export function replaceEntry(state: SessionState, entry: Entry): void {
  const i = state.index.get(entry.id) as number;
  const before = state.entries[i] as Entry;
  state.entries[i] = entry;
  state.meta = metaAfterUpdate(state.meta, before, entry);
}

export function setLeaf(state: SessionState, leafId: string | null, ts: string): void {
  state.meta = { ...state.meta, leafEntryId: leafId, updatedAt: ts > state.meta.updatedAt ? ts : state.meta.updatedAt };
}

function fail(file: string, line: JsonlLine, what: string): never {
  throw new ArborError(
    "corrupt_session",
    `${file}:${line.lineNo}: ${what}. The file was not changed; fix or remove that line (or restore a backup) to open the session.`,
    { file, line: line.lineNo },
  );
}

function parseEntry(file: string, line: JsonlLine, raw: unknown): Entry {
  const type = (raw as { type?: unknown }).type;
  if (!isEntryType(type)) {
    throw new ArborError(
      "unknown_entry_type",
      `${file}:${line.lineNo}: unknown entry type ${JSON.stringify(type)}; it was probably written by a newer Arbor. Upgrade to open this session.`,
      { file, line: line.lineNo },
    );
  }
  const r = EntrySchema.safeParse(migrateEntry(raw));
  if (!r.success) fail(file, line, `invalid ${type} entry (${describeIssues(r.error, 3)})`);
  return r.data;
}

/**
 * Replays entries.jsonl into memory. Complete lines must all be valid: a bad line in the middle is
 * a `corrupt_session` error naming file and line, never skipped. Only the tail after the last
 * newline (or an unfinished batch) is treated as a torn write and left out.
 */
export function loadSessionState(file: string, meta: SessionMeta): SessionState {
  const state = emptyState({ ...meta, rootEntryId: null, leafEntryId: null, totalMessages: 0, totalTokens: 0, totalCost: 0 });
  let batch: { left: number; start: number; entries: Entry[]; ids: Set<string> } | null = null;
  const check = (line: JsonlLine, entry: Entry, pendingIds?: Set<string>) => {
    if (hasEntry(state, entry.id) || pendingIds?.has(entry.id)) fail(file, line, `duplicate entry id ${entry.id}`);
    for (const ref of referencedIds(entry)) {
      if (!hasEntry(state, ref) && !pendingIds?.has(ref)) {
        fail(file, line, `entry ${entry.id} refers to ${ref}, which does not come before it`);
      }
    }
  };
  const scan = scanJsonl(file, (line) => {
    let raw: unknown;
    try {
      raw = JSON.parse(line.text);
    } catch {
      fail(file, line, "not valid JSON");
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(file, line, "not a JSON object");
    if ("$op" in raw) {
      if (batch) fail(file, line, "a control record inside a batch");
      const r = ControlRecordSchema.safeParse(raw);
      if (!r.success) fail(file, line, `invalid control record (${describeIssues(r.error, 3)})`);
      const rec = r.data;
      switch (rec.$op) {
        case "leaf":
          if (rec.leafId !== null && !hasEntry(state, rec.leafId)) fail(file, line, `leaf ${rec.leafId} does not exist`);
          setLeaf(state, rec.leafId, rec.ts);
          break;
        case "update": {
          const entry = parseEntry(file, line, rec.entry);
          const before = getEntry(state, entry.id);
          if (!before) fail(file, line, `update of missing entry ${entry.id}`);
          if (before.parentId !== entry.parentId || before.type !== entry.type)
            fail(file, line, `update moves entry ${entry.id}`);
          replaceEntry(state, entry);
          break;
        }
        case "batch":
          batch = { left: rec.n, start: line.start, entries: [], ids: new Set() };
          break;
        default: {
          const unreachable: never = rec;
          return unreachable;
        }
      }
      return;
    }
    const entry = parseEntry(file, line, raw);
    if (batch) {
      check(line, entry, batch.ids);
      batch.entries.push(entry);
      batch.ids.add(entry.id);
      if (--batch.left === 0) {
        for (const e of batch.entries) addEntry(state, e);
        batch = null;
      }
      return;
    }
    check(line, entry);
    addEntry(state, entry);
  });
  const unfinished = batch as { start: number } | null;
  state.bytes = unfinished ? unfinished.start : scan.completeBytes;
  state.tornBytes = scan.completeBytes + scan.tornBytes - state.bytes;
  return state;
}
