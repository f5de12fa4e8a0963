import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import { checkAppend, planAppend } from "../append-plan.js";
import { applyEntryPatch, type PreparedEntry } from "../prepare.js";
import type { RandomPool } from "../random-pool.js";
import type { EntryPatch } from "../store.js";
import { leafRecord, updateRecord } from "./records.js";
import { getEntry, hasEntry, type SessionState } from "./session-state.js";

/*
 * What the file store writes for an append, an entry update and an import, apart from the store class so that
 * file-store.ts stays a readable list of the store's operations (and under the size cap).
 */

export interface BatchLimits {
  now: string;
  random: RandomPool;
  maxEntryBytes: number;
  prevalidated: boolean;
}

/** Validates a whole batch against the session's tree before anything is written. */
export function prepareBatch(
  sessionId: string,
  state: SessionState,
  inputs: readonly unknown[],
  limits: BatchLimits,
): PreparedEntry[] {
  // Ids made here are fresh random 64-bit values: as on SQLite, a resumed session's index is not
  // searched for the impossible repeat (the entries held here still are). The leaf exists by definition.
  const made = new Set<string>();
  const leaf = state.meta.leafEntryId;
  const known = (id: string) => id === leaf || (made.has(id) ? state.locs.has(id) : hasEntry(state, id));
  const newId = () => {
    let id = limits.random.entryId();
    while (state.locs.has(id)) id = limits.random.entryId();
    made.add(id);
    return id;
  };
  const plan = planAppend(inputs, state.meta.leafEntryId, {
    now: limits.now,
    newId,
    maxEntryBytes: limits.maxEntryBytes,
    prevalidated: limits.prevalidated,
  });
  checkAppend(sessionId, plan, known);
  return plan.prepared;
}

/** The entry after a patch and the update record that says so, checked against the size limit first. */
export function updatedEntry(
  sessionId: string,
  state: SessionState,
  entryId: string,
  patch: EntryPatch,
  maxEntryBytes: number,
): { after: Entry; record: string } {
  const before = getEntry(state, entryId);
  if (!before) throw new ArborError("entry_not_found", `Entry ${entryId} does not exist in session ${sessionId}.`);
  const after = applyEntryPatch(before, patch);
  const json = JSON.stringify(after);
  if (Buffer.byteLength(json) > maxEntryBytes) {
    throw new ArborError("entry_too_large", `The updated entry exceeds the ${maxEntryBytes}-byte limit.`);
  }
  return { after, record: updateRecord(json) };
}

/** entries.jsonl of an imported session: its entries, then the leaf it was exported at. */
export function importedText(entries: readonly Entry[], leafEntryId: string | null, ts: string): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("") + leafRecord(leafEntryId, ts);
}
