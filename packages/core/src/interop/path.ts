import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";

/** The entries a given entry points at besides its parent. */
function references(e: Entry): string[] {
  switch (e.type) {
    case "label":
      return [e.targetId];
    case "branch_summary":
      return [e.fromId];
    case "compaction":
      return e.firstKeptEntryId === null ? [] : [e.firstKeptEntryId];
    default:
      return [];
  }
}

/** The branch root → `leaf`, in append order; an unknown leaf is an `entry_not_found` error. */
export function branchTo(entries: ReadonlyArray<Entry>, leaf: string, sessionId: string): Entry[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  if (!byId.has(leaf)) {
    throw new ArborError(
      "entry_not_found",
      `Session ${sessionId} has no entry ${leaf}; 'arbor sessions tree ${sessionId}' lists its entries.`,
    );
  }
  const keep = new Set<string>();
  addAncestors(byId, leaf, keep);
  return entries.filter((e) => keep.has(e.id));
}

function addAncestors(byId: ReadonlyMap<string, Entry>, id: string, keep: Set<string>): void {
  for (let e = byId.get(id); e !== undefined && !keep.has(e.id); e = e.parentId === null ? undefined : byId.get(e.parentId))
    keep.add(e.id);
}

/**
 * The entries to export: all of them, or with `leaf` the branch root → leaf plus the branches its
 * entries point into (the branch a summary left, a label's target), so the result is a whole tree
 * that imports on its own.
 */
export function entriesToExport(entries: ReadonlyArray<Entry>, leaf: string | undefined, sessionId: string): Entry[] {
  if (leaf === undefined) return [...entries];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const keep = new Set(branchTo(entries, leaf, sessionId).map((e) => e.id));
  for (let grew = true; grew; ) {
    grew = false;
    for (const id of [...keep]) {
      for (const ref of references(byId.get(id) as Entry)) {
        if (keep.has(ref) || !byId.has(ref)) continue;
        addAncestors(byId, ref, keep);
        grew = true;
      }
    }
  }
  return entries.filter((e) => keep.has(e.id));
}
