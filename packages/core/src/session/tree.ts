import { ArborError } from "../errors.js";
import { goalTreeOnPath } from "../goal/goal-path.js";
import type { Entry } from "../model/entry.js";
import type { SessionMeta } from "../model/session.js";
import type { Snapshot } from "../model/snapshot.js";
import { buildContext, contextMessages } from "./context.js";
import { subagentMaps } from "./subagent-maps.js";

/** Root key in `childrenByParentId`. */
export const ROOT_KEY = "";

/** Root → leaf, following parent links from the leaf. O(depth). */
export function activePath(leafId: string | null, byId: (id: string) => Entry | undefined): Entry[] {
  const path: Entry[] = [];
  let id = leafId;
  while (id !== null) {
    const entry = byId(id);
    if (!entry) throw new ArborError("corrupt_session", `Entry ${id} is on the active path but does not exist.`);
    path.push(entry);
    id = entry.parentId;
    if (path.length > 10_000_000) throw new ArborError("corrupt_session", "The active path has a cycle.");
  }
  return path.reverse();
}

export function childrenByParentId(entries: readonly Entry[]): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const e of entries) {
    const key = e.parentId ?? ROOT_KEY;
    const list = out[key];
    if (list) list.push(e.id);
    else out[key] = [e.id];
  }
  return { ...out };
}

/** Label state after every label entry of the session, in append order. */
export function labelsByEntryId(entries: readonly Entry[]): Record<string, string> {
  const out = new Map<string, string>();
  for (const e of entries) {
    if (e.type !== "label") continue;
    if (e.label === undefined) out.delete(e.targetId);
    else out.set(e.targetId, e.label);
  }
  return Object.fromEntries(out);
}

export function buildSnapshot(session: SessionMeta, entries: readonly Entry[], path: readonly Entry[]): Snapshot {
  const ctx = buildContext(path);
  const messageEntryIds: string[] = [];
  for (let i = 0; i < ctx.length; i++) messageEntryIds.push(ctx.items[i]?.entryId ?? "");
  return {
    session,
    entries: [...entries],
    activePath: path.map((e) => e.id),
    childrenByParentId: childrenByParentId(entries),
    labelsByEntryId: labelsByEntryId(entries),
    runtimeContext: {
      messages: contextMessages(ctx),
      messageEntryIds,
      thinkingLevel: ctx.thinkingLevel,
      model: ctx.model,
      goalTree: goalTreeOnPath(path) ?? null,
    },
    ...subagentMaps(entries),
  };
}
