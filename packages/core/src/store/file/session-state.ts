import { closeSync, openSync } from "node:fs";
import { ArborError } from "../../errors.js";
import { type Entry, EntrySchema, isEntryType } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { describeIssues } from "../../model/validate.js";
import { migrateEntry } from "../../session/migrate.js";
import { activePath } from "../../session/tree.js";
import { type LivePath, livePathByLinks, livePathOf } from "../live-path.js";
import { metaAfterAppend, metaAfterUpdate, type PreparedEntry, referencedIds } from "../prepare.js";
import { type EntryLoc, type IndexTable, indexLine, readRecord } from "./entry-index.js";
import { type JsonlLine, scanJsonl } from "./jsonl-reader.js";
import { ControlRecordSchema } from "./records.js";

/**
 * One session held in memory by the file store. Read whole, it holds every entry; resumed through
 * its index (entries.idx), it holds only where each entry is, and reads an entry from entries.jsonl
 * when asked for it, so continuing a long session costs what its live path costs.
 */
export interface SessionState {
  meta: SessionMeta;
  /** Every entry in file order, or null while only the index is loaded. */
  entries: Entry[] | null;
  /** Position of each entry in `entries` (empty while they are not loaded). */
  index: Map<string, number>;
  /** Where each entry's latest record is in entries.jsonl: every entry once read whole, else those written since. */
  locs: Map<string, EntryLoc>;
  /** The index a session was resumed through; `locs` comes first. */
  base: IndexTable | null;
  /** Index lines for records not yet handed to the index writer. */
  unindexed: string[];
  /** entries.jsonl and a handle to read it by offset, opened on first use. */
  source: { file: string; fd: number | null };
  /** Bytes of entries.jsonl that hold complete records. */
  bytes: number;
  /** Bytes past `bytes` that belong to a torn write and are moved aside before the next append. */
  tornBytes: number;
}

export function emptyState(meta: SessionMeta, file: string): SessionState {
  return {
    meta,
    entries: [],
    index: new Map(),
    locs: new Map(),
    base: null,
    unindexed: [],
    source: { file, fd: null },
    bytes: 0,
    tornBytes: 0,
  };
}

function locOf(state: SessionState, id: string): EntryLoc | undefined {
  const loc = state.locs.get(id) ?? state.base?.get(id);
  if (loc === null) indexLie(state, id);
  return loc;
}

export function hasEntry(state: SessionState, id: string): boolean {
  return locOf(state, id) !== undefined;
}

export function getEntry(state: SessionState, id: string): Entry | undefined {
  if (state.entries) {
    const i = state.index.get(id);
    return i === undefined ? undefined : state.entries[i];
  }
  const loc = locOf(state, id);
  return loc === undefined ? undefined : readIndexed(state, id, loc);
}

/** Closes the read handle of an indexed session. */
export function closeSource(state: SessionState): void {
  if (state.source.fd !== null) closeSync(state.source.fd);
  state.source.fd = null;
}

function indexLie(state: SessionState, id: string): never {
  closeSource(state);
  throw new ArborError(
    "corrupt_session",
    `${state.source.file}: its index (entries.idx beside it) does not point at entry ${id}. Delete entries.idx; the next read rebuilds it.`,
    { file: state.source.file },
  );
}

/** An entry read at its indexed place; checked like a loaded line, and against the id the index gave. */
function readIndexed(state: SessionState, id: string, loc: EntryLoc): Entry {
  if (state.source.fd === null) state.source.fd = openSync(state.source.file, "r");
  const text = readRecord(state.source.fd, loc);
  if (text === undefined) indexLie(state, id);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    indexLie(state, id);
  }
  if (loc.update) raw = (raw as { entry?: unknown } | null)?.entry;
  if (typeof raw !== "object" || raw === null || (raw as { id?: unknown }).id !== id) indexLie(state, id);
  const r = EntrySchema.safeParse(migrateEntry(raw));
  if (!r.success) indexLie(state, id);
  return r.data;
}

/** Adds an entry already checked against the tree; `fold` false when session.json already counts it. */
export function addEntry(state: SessionState, entry: Entry, loc: EntryLoc, fold = true): void {
  state.locs.set(entry.id, loc);
  state.unindexed.push(indexLine(entry.id, loc));
  if (state.entries) {
    state.index.set(entry.id, state.entries.length);
    state.entries.push(entry);
  }
  if (fold) state.meta = metaAfterAppend(state.meta, entry);
}

/** Adds entries just written as consecutive lines of entries.jsonl from byte `offset`, `lengths` their lines' bytes. */
export function addWritten(
  state: SessionState,
  written: readonly PreparedEntry[],
  offset: number,
  lengths: readonly number[],
): void {
  let at = offset;
  for (let i = 0; i < written.length; i++) {
    const p = written[i] as PreparedEntry;
    const length = lengths[i] as number;
    addEntry(state, p.entry, { offset: at, length, parentId: p.entry.parentId, update: false });
    at += length;
  }
}

/** The live path: cut from the active path when every entry is loaded, else followed link by link through the index. */
export function livePathOfState(state: SessionState): LivePath {
  // Through the index every id the path names must be found: one that is not means the index lies.
  const get = (id: string) => getEntry(state, id) ?? (state.entries ? undefined : indexLie(state, id));
  return state.entries ? livePathOf(activePath(state.meta.leafEntryId, get)) : livePathByLinks(state.meta.leafEntryId, get);
}

export function replaceEntry(state: SessionState, entry: Entry, loc: EntryLoc, fold = true): void {
  if (fold) state.meta = metaAfterUpdate(state.meta, getEntry(state, entry.id) as Entry, entry);
  state.locs.set(entry.id, loc);
  state.unindexed.push(indexLine(entry.id, loc));
  if (state.entries) state.entries[state.index.get(entry.id) as number] = entry;
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

function recordLoc(line: JsonlLine, entry: Entry, update: boolean): EntryLoc {
  return { offset: line.start, length: line.end - line.start + 1, parentId: entry.parentId, update };
}

/**
 * Runs a scan that starts at byte `from`, whose line numbers count from there: an error naming a line
 * is given the line's number in the whole file (counted only then, so a resume does not read the head).
 */
function withLineNumbers<T>(file: string, from: number, scan: () => T): T {
  try {
    return scan();
  } catch (err) {
    const line = err instanceof ArborError ? err.details?.line : undefined;
    if (from === 0 || typeof line !== "number" || !(err instanceof ArborError)) throw err;
    let before = 0;
    scanJsonl(file, (l) => {
      if (l.start < from) before = l.lineNo;
    });
    const real = before + line;
    throw new ArborError(err.code, err.message.replace(`${file}:${line}:`, `${file}:${real}:`), { ...err.details, line: real });
  }
}

/**
 * Replays entries.jsonl from byte `from` into `state`. Complete lines must all be valid: a bad line in
 * the middle is a `corrupt_session` error naming file and line, never skipped. Only the tail after
 * the last newline (or an unfinished batch) is treated as a torn write and left out. Records before
 * `foldFrom` are already counted in the meta and only indexed.
 */
function replay(state: SessionState, from: number, foldFrom: number): void {
  const file = state.source.file;
  let batch: { left: number; start: number; entries: [Entry, EntryLoc][]; ids: Set<string> } | null = null;
  const check = (line: JsonlLine, entry: Entry, pendingIds?: Set<string>) => {
    if (hasEntry(state, entry.id) || pendingIds?.has(entry.id)) fail(file, line, `duplicate entry id ${entry.id}`);
    for (const ref of referencedIds(entry)) {
      if (!hasEntry(state, ref) && !pendingIds?.has(ref)) {
        fail(file, line, `entry ${entry.id} refers to ${ref}, which does not come before it`);
      }
    }
  };
  const scan = withLineNumbers(file, from, () =>
    scanJsonl(
      file,
      (line) => {
        const fold = line.start >= foldFrom;
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
              if (fold) setLeaf(state, rec.leafId, rec.ts);
              break;
            case "update": {
              const entry = parseEntry(file, line, rec.entry);
              const before = getEntry(state, entry.id);
              if (!before) fail(file, line, `update of missing entry ${entry.id}`);
              if (before.parentId !== entry.parentId || before.type !== entry.type)
                fail(file, line, `update moves entry ${entry.id}`);
              replaceEntry(state, entry, recordLoc(line, entry, true), fold);
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
          batch.entries.push([entry, recordLoc(line, entry, false)]);
          batch.ids.add(entry.id);
          if (--batch.left === 0) {
            for (const [e, loc] of batch.entries) addEntry(state, e, loc, fold);
            batch = null;
          }
          return;
        }
        check(line, entry);
        addEntry(state, entry, recordLoc(line, entry, false), fold);
      },
      from,
    ),
  );
  const unfinished = batch as { start: number } | null;
  state.bytes = unfinished ? unfinished.start : scan.completeBytes;
  state.tornBytes = scan.completeBytes + scan.tornBytes - state.bytes;
}

/** Reads entries.jsonl whole into memory; the derived meta fields are computed from it. */
export function loadSessionState(file: string, meta: SessionMeta): SessionState {
  const state = emptyState(
    { ...meta, rootEntryId: null, leafEntryId: null, totalMessages: 0, totalTokens: 0, totalCost: 0 },
    file,
  );
  replay(state, 0, 0);
  return state;
}

/**
 * Resumes a session through its index: the entries' places come from entries.idx (checked by the
 * caller), the derived meta from session.json, which counts entries.jsonl up to `accounted` bytes
 * (at or past the index's end), and the records past the index are read and checked as a load does.
 */
export function loadIndexedState(file: string, meta: SessionMeta, index: IndexTable, accounted: number): SessionState {
  const state: SessionState = { ...emptyState(meta, file), entries: null, base: index };
  replay(state, index.covered, accounted);
  return state;
}
