import type { SessionMeta } from "@arbor/core";

/** A session with its sub-traces (sessions whose `parentSessionId` is it): sessions newest first, sub-traces in the order they ran. */
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
  // A plan's sub-traces read as its steps: step 1 above step 2.
  const oldestFirst = (a: SessionNode, b: SessionNode) => a.meta.createdAt.localeCompare(b.meta.createdAt);
  const sortChildren = (list: SessionNode[]) => {
    for (const n of list) {
      n.children.sort(oldestFirst);
      sortChildren(n.children);
    }
  };
  roots.sort(newestFirst);
  sortChildren(roots);
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

/** Whether `id` is this node or one of its sub-traces (a collapsed parent opens to show the selected one). */
export function containsSession(node: SessionNode, id: string | undefined): boolean {
  if (id === undefined) return false;
  return node.meta.id === id || node.children.some((c) => containsSession(c, id));
}

export interface ProjectGroup {
  /** The workspace path; undefined for sessions that recorded none. */
  cwd: string | undefined;
  name: string;
  sessions: SessionNode[];
}

/** Top-level sessions by the workspace they ran in, groups in the order of their newest session. */
export function groupByProject(roots: readonly SessionNode[]): ProjectGroup[] {
  const groups = new Map<string, ProjectGroup>();
  for (const node of roots) {
    const cwd = node.meta.cwd;
    const key = cwd ?? "";
    let group = groups.get(key);
    if (!group) {
      const name = cwd ? (cwd.replace(/\/+$/, "").split("/").at(-1) ?? cwd) || cwd : "No project recorded";
      group = { cwd, name, sessions: [] };
      groups.set(key, group);
    }
    group.sessions.push(node);
  }
  return [...groups.values()];
}
