import { z } from "zod";
import type { Entry } from "../model/entry.js";
import { EntryIdSchema, SessionIdSchema } from "../model/ids.js";
import type { Store } from "../store/store.js";

/**
 * The first entry of a sub-trace that starts from its parent's context (explore without
 * `background`): a reference, not a copy, so a branch costs one entry however long the
 * parent's history is, and the sub-trace can be continued later with the same context.
 */
export const INHERIT_ENTRY_TYPE = "arbor.inherit";

/** The parent session and the entry the branch's context stops before (the message that started it). */
export const InheritDataSchema = z.looseObject({ sessionId: SessionIdSchema, beforeEntryId: EntryIdSchema });
export type InheritRef = Pick<z.infer<typeof InheritDataSchema>, "sessionId" | "beforeEntryId">;

/** The entries from a session's root up to, not including, `entryId`, following parent links. */
async function pathBefore(store: Store, sessionId: string, entryId: string): Promise<Entry[]> {
  const entries = await store.listEntries(sessionId);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const out: Entry[] = [];
  const start = byId.get(entryId);
  for (
    let e = start?.parentId ? byId.get(start.parentId) : undefined;
    e;
    e = e.parentId === null ? undefined : byId.get(e.parentId)
  ) {
    out.push(e);
  }
  return out.reverse();
}

/**
 * The path whose messages the model sees: `path` itself, or, when it starts with an inherit
 * reference, the parent's path up to the referenced entry followed by `path` (recursively, for a
 * branch of a branch). A parent that is gone leaves only the sub-trace's own entries.
 */
export async function contextPath(store: Store, path: readonly Entry[], depth = 0): Promise<Entry[]> {
  const first = path[0];
  if (first?.type !== "custom" || first.customType !== INHERIT_ENTRY_TYPE || depth > 16) return [...path];
  const ref = InheritDataSchema.safeParse(first.data);
  if (!ref.success) return [...path];
  return [...(await inheritedPath(store, ref.data, depth + 1)), ...path];
}

/**
 * What a sub-trace that starts from `ref` inherits: the parent's context path up to the referenced
 * entry. A run reads it before it writes its inherit entry, so that entry goes through its journal.
 */
export async function inheritedPath(store: Store, ref: InheritRef, depth = 1): Promise<Entry[]> {
  const parent = await pathBefore(store, ref.sessionId, ref.beforeEntryId).catch(() => [] as Entry[]);
  return contextPath(store, parent, depth);
}
