import { ArborError } from "../errors.js";
import { type Entry, type EntryInput, EntryInputSchema, EntrySchema, isEntryType } from "../model/entry.js";
import { entryIdFromBytes } from "../model/ids.js";
import type { SessionMeta } from "../model/session.js";
import { describeIssues, parseOrThrow } from "../model/validate.js";

/** Entries past this size are refused; large payloads belong out of line (blobs). */
export const DEFAULT_MAX_ENTRY_BYTES = 8 * 1024 * 1024;

export interface PrepareContext {
  leafId: string | null;
  now: string;
  newId: () => string;
  maxEntryBytes: number;
  /** The inputs were built by the caller from typed values: skip the schema check (see AppendOptions). */
  prevalidated?: boolean;
}

export interface PreparedEntry {
  entry: Entry;
  /** The entry as one JSON line (no newline), reused by stores that write JSON. */
  json: string;
}

export function randomEntryId(random: (n: number) => Uint8Array): string {
  return entryIdFromBytes(random(8));
}

/** Validates an append and fills in id, parent (the leaf by default) and timestamp. Pure. */
export function prepareEntry(input: unknown, ctx: PrepareContext): PreparedEntry {
  const type = (input as { type?: unknown } | null)?.type;
  if (input !== null && typeof input === "object" && !isEntryType(type)) {
    throw new ArborError(
      "unknown_entry_type",
      `Unknown entry type ${JSON.stringify(type)}: it may come from a newer Arbor; upgrade to write or read it.`,
    );
  }
  let parsed: EntryInput;
  if (ctx.prevalidated === true && input !== null && typeof input === "object") parsed = input as EntryInput;
  else {
    const result = EntryInputSchema.safeParse(input);
    if (!result.success) throw new ArborError("invalid_input", `Invalid entry: ${describeIssues(result.error)}`);
    parsed = result.data;
  }
  const entry = {
    ...parsed,
    id: parsed.id ?? ctx.newId(),
    parentId: parsed.parentId === undefined ? ctx.leafId : parsed.parentId,
    timestamp: parsed.timestamp ?? ctx.now,
  } as Entry;
  const json = JSON.stringify(entry);
  checkEntrySize(json, ctx.maxEntryBytes);
  return { entry, json };
}

/** Refuses an entry whose JSON is over the limit. */
export function checkEntrySize(json: string, maxEntryBytes: number): void {
  // UTF-16 length bounds the UTF-8 size from below; measure exactly only when it could matter.
  if (json.length * 3 > maxEntryBytes && Buffer.byteLength(json) > maxEntryBytes) {
    throw new ArborError(
      "entry_too_large",
      `Entry of ${Buffer.byteLength(json)} bytes exceeds the ${maxEntryBytes}-byte limit; store large content out of line.`,
    );
  }
}

/** Ids an entry points at that must already exist in the same session. */
export function referencedIds(entry: Entry): string[] {
  const ids: string[] = [];
  if (entry.parentId !== null) ids.push(entry.parentId);
  switch (entry.type) {
    case "label":
      ids.push(entry.targetId);
      break;
    case "compaction":
      if (entry.firstKeptEntryId !== null) ids.push(entry.firstKeptEntryId);
      break;
    case "branch_summary":
      ids.push(entry.fromId);
      break;
    default:
      break;
  }
  return ids;
}

export function missingReferenceError(sessionId: string, entry: Entry, missing: string): ArborError {
  if (missing === entry.parentId) {
    return new ArborError("parent_not_found", `Parent entry ${missing} does not exist in session ${sessionId}.`);
  }
  return new ArborError(
    "entry_not_found",
    `Entry ${missing} referenced by the new ${entry.type} entry does not exist in session ${sessionId}.`,
  );
}

const FIXED_FIELDS = ["id", "parentId", "type", "timestamp"] as const;

/** The entry after an updateEntry patch, validated; the tree position and type never change. */
export function applyEntryPatch(entry: Entry, patch: Record<string, unknown>): Entry {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new ArborError("invalid_input", "An entry patch must be an object.");
  }
  for (const key of FIXED_FIELDS) {
    if (key in patch && patch[key] !== entry[key]) {
      throw new ArborError("invalid_input", `An entry's ${key} cannot be changed.`);
    }
  }
  return parseOrThrow(EntrySchema, { ...entry, ...patch }, "entry update");
}

function tokenTotal(entry: Entry): number {
  if (entry.type !== "message" || !entry.message.tokens) return 0;
  const t = entry.message.tokens;
  return t.input + t.output;
}

/** Session meta after an append: leaf, root, time, and the running totals. Pure. */
export function metaAfterAppend(meta: SessionMeta, entry: Entry): SessionMeta {
  const next: SessionMeta = {
    ...meta,
    leafEntryId: entry.id,
    rootEntryId: meta.rootEntryId ?? entry.id,
    updatedAt: entry.timestamp > meta.updatedAt ? entry.timestamp : meta.updatedAt,
  };
  if (entry.type === "message") {
    next.totalMessages = meta.totalMessages + 1;
    next.totalTokens = meta.totalTokens + tokenTotal(entry);
    next.totalCost = meta.totalCost + (entry.message.cost ?? 0);
  } else if (entry.type === "session_info" && entry.title !== undefined) {
    next.title = entry.title;
  }
  return next;
}

/** Session meta after an entry was replaced: totals move by the difference. Pure. */
export function metaAfterUpdate(meta: SessionMeta, before: Entry, after: Entry): SessionMeta {
  const cost = (e: Entry) => (e.type === "message" ? (e.message.cost ?? 0) : 0);
  return {
    ...meta,
    totalTokens: meta.totalTokens - tokenTotal(before) + tokenTotal(after),
    totalCost: meta.totalCost - cost(before) + cost(after),
  };
}
