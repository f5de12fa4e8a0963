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

/**
 * Throws the first problem in batch order, so a batch reports the same error whichever entry's
 * check happens to be cheapest: a dangling reference, a reused id, or an entry that did not parse.
 */
export function checkAppend(sessionId: string, plan: AppendPlan, existsInTable: (id: string) => boolean): void {
  const made = new Set<string>();
  for (const { entry } of plan.prepared) {
    for (const ref of referencedIds(entry)) {
      if (!made.has(ref) && !existsInTable(ref)) throw missingReferenceError(sessionId, entry, ref);
    }
    if (made.has(entry.id) || existsInTable(entry.id)) {
      throw new ArborError(
        "duplicate_entry",
        `Entry id ${entry.id} is already used in session ${sessionId}; omit the id to get a fresh one.`,
      );
    }
    made.add(entry.id);
  }
  if (plan.failure !== undefined) throw plan.failure;
}

export function metaAfterBatch(meta: SessionMeta, entries: readonly Entry[]): SessionMeta {
  let next = meta;
  for (const e of entries) next = metaAfterAppend(next, e);
  return next;
}
