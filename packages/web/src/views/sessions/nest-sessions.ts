import type { SessionMeta } from "@arbor/core";

/** A session with its sub-traces (sessions whose `parentSessionId` is it), newest first at each level. */
export interface SessionNode {
  meta: SessionMeta;
  children: SessionNode[];
}

export function sessionTitle(meta: SessionMeta): string {
  return meta.title || meta.task || meta.id;
}

/**
 * Nests sub-traces under their parents. A sub-trace whose parent is not loaded (an older page, or
 * filtered out) stays at the top level, so nothing the server sent is hidden.
 */
export function nestSessions(sessions: readonly SessionMeta[]): SessionNode[] {
  const nodes = new Map<string, SessionNode>();
  for (const meta of sessions) nodes.set(meta.id, { meta, children: [] });
  const roots: SessionNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.meta.parentSessionId === undefined ? undefined : nodes.get(node.meta.parentSessionId);
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const newestFirst = (a: SessionNode, b: SessionNode) => b.meta.createdAt.localeCompare(a.meta.createdAt);
  const sort = (list: SessionNode[]) => {
    list.sort(newestFirst);
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}

/** Sessions whose title, task or id contains the query (case-insensitive), with the parents that lead to them. */
export function filterSessions(sessions: readonly SessionMeta[], query: string): SessionMeta[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...sessions];
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const keep = new Set<string>();
  for (const s of sessions) {
    const hay = `${s.title ?? ""}\n${s.task ?? ""}\n${s.id}`.toLowerCase();
    if (!hay.includes(q)) continue;
    // Keep the ancestors too, so a matching sub-trace shows where it belongs.
    for (let cur: SessionMeta | undefined = s; cur && !keep.has(cur.id); ) {
      keep.add(cur.id);
      cur = cur.parentSessionId === undefined ? undefined : byId.get(cur.parentSessionId);
    }
  }
  return sessions.filter((s) => keep.has(s.id));
}
