import { ArborError } from "../errors.js";
import type { SessionMeta } from "../model/session.js";

/**
 * How far any walk up a chain of parent sessions goes. Sub-agents nest a handful of levels; a
 * chain longer than this is damaged or hostile, and a walk must end rather than follow it.
 */
export const MAX_PARENT_DEPTH = 256;

/**
 * Refuses a parent that would make `id` its own ancestor: a session naming itself, or a chain of
 * parents leading back to it. Such a loop hid the session from listings and made every walk over
 * parents (deleting a session with its sub-sessions) run for ever. `parentOf` reads one session's
 * parent; a parent that does not exist (yet) ends the chain. The walk is bounded.
 */
export async function assertNoParentCycle(
  id: string,
  parentId: string | undefined,
  parentOf: (id: string) => Promise<string | undefined>,
): Promise<void> {
  const seen = new Set<string>();
  for (let current = parentId; current !== undefined; current = await parentOf(current)) {
    if (current === id) {
      throw new ArborError(
        "invalid_input",
        parentId === id
          ? `Session ${id} names itself as its parent session; a session cannot be its own parent.`
          : `Session ${id} cannot have parent ${parentId}: that session descends from ${id}, so the parents would form a loop.`,
      );
    }
    if (seen.has(current) || seen.size >= MAX_PARENT_DEPTH) {
      throw new ArborError(
        "invalid_input",
        `The parent sessions above ${parentId} loop or go deeper than ${MAX_PARENT_DEPTH} levels; give another parent.`,
      );
    }
    seen.add(current);
  }
}

/**
 * The sessions under `id` at any depth, deepest first (so they can be deleted before their
 * parents), each once: a loop of parents in damaged data ends the walk instead of repeating it. Pure.
 */
export function descendantsDeepestFirst(metas: ReadonlyArray<Pick<SessionMeta, "id" | "parentSessionId">>, id: string): string[] {
  const children = new Map<string, string[]>();
  for (const meta of metas) {
    if (meta.parentSessionId === undefined || meta.id === meta.parentSessionId) continue;
    const list = children.get(meta.parentSessionId);
    if (list) list.push(meta.id);
    else children.set(meta.parentSessionId, [meta.id]);
  }
  const seen = new Set<string>([id]);
  const queue = [id];
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      queue.push(child);
    }
  }
  return queue.slice(1).reverse();
}
