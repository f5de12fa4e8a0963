import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { SessionMeta } from "../model/session.js";
import {
  metaAfterAppend,
  missingReferenceError,
  type PrepareContext,
  type PreparedEntry,
  prepareEntry,
  referencedIds,
} from "./prepare.js";

/**
 * A batch append split into a pure part (prepare every entry, chaining the leaf) and a check
 * against ids already in the session. Every backend shares it: the asynchronous Kysely path can
 * fetch every id it needs in one query while SQLite and the file store look ids up one by one.
 */
export interface AppendPlan {
  prepared: PreparedEntry[];
  /** The error preparing entry `prepared.length`, raised only after earlier entries were checked. */
  failure?: unknown;
  /** Ids whose presence in the table decides the outcome: new ids and references not made in the batch. */
  lookups: string[];
}

export function planAppend(inputs: readonly unknown[], leafId: string | null, ctx: Omit<PrepareContext, "leafId">): AppendPlan {
  // Most appends are one entry (a run writes each message as it comes): its lookups are its id and
  // references, with no batch to deduplicate against, so no sets and no second context are made.
  if (inputs.length === 1)
    return planOne(inputs[0], {
      now: ctx.now,
      newId: ctx.newId,
      maxEntryBytes: ctx.maxEntryBytes,
      prevalidated: ctx.prevalidated,
      leafId,
    });
  const prepared: PreparedEntry[] = [];
  const lookups = new Set<string>();
  const made = new Set<string>();
  // One context for the batch, its leaf moved along: not a copy of it per entry.
  const at: PrepareContext = { ...ctx, leafId };
  for (const input of inputs) {
    let p: PreparedEntry;
    try {
      p = prepareEntry(input, at);
    } catch (failure) {
      return { prepared, failure, lookups: [...lookups] };
    }
    prepared.push(p);
    if (!made.has(p.entry.id)) lookups.add(p.entry.id);
    for (const ref of referencedIds(p.entry)) if (!made.has(ref)) lookups.add(ref);
    made.add(p.entry.id);
    at.leafId = p.entry.id;
  }
  return { prepared, lookups: [...lookups] };
}

function planOne(input: unknown, ctx: PrepareContext): AppendPlan {
  let p: PreparedEntry;
  try {
    p = prepareEntry(input, ctx);
  } catch (failure) {
    return { prepared: [], failure, lookups: [] };
  }
  const refs = referencedIds(p.entry);
  const lookups = [p.entry.id];
  for (const ref of refs) if (ref !== p.entry.id && !lookups.includes(ref)) lookups.push(ref);
  return { prepared: [p], lookups };
}

/**
 * Throws the first problem in batch order, so a batch reports the same error whichever entry's
 * check happens to be cheapest: a dangling reference, a reused id, or an entry that did not parse.
 */
export function checkAppend(sessionId: string, plan: AppendPlan, existsInTable: (id: string) => boolean): void {
  const only = plan.prepared.length === 1 ? plan.prepared[0]?.entry : undefined;
  if (only) {
    // One entry: nothing made in the batch to look at first (a self-reference is a missing entry).
    for (const ref of referencedIds(only)) if (!existsInTable(ref)) throw missingReferenceError(sessionId, only, ref);
    if (existsInTable(only.id)) throw duplicateEntry(sessionId, only.id);
    if (plan.failure !== undefined) throw plan.failure;
    return;
  }
  const made = new Set<string>();
  for (const { entry } of plan.prepared) {
    for (const ref of referencedIds(entry)) {
      if (!made.has(ref) && !existsInTable(ref)) throw missingReferenceError(sessionId, entry, ref);
    }
    if (made.has(entry.id) || existsInTable(entry.id)) throw duplicateEntry(sessionId, entry.id);
    made.add(entry.id);
  }
  if (plan.failure !== undefined) throw plan.failure;
}

function duplicateEntry(sessionId: string, id: string): ArborError {
  return new ArborError(
    "duplicate_entry",
    `Entry id ${id} is already used in session ${sessionId}; omit the id to get a fresh one.`,
  );
}

export function metaAfterBatch(meta: SessionMeta, entries: readonly Entry[]): SessionMeta {
  let next = meta;
  for (const e of entries) next = metaAfterAppend(next, e);
  return next;
}
