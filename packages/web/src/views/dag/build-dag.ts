import { childrenOf, type GoalTreeView, type GoalView, type Stats } from "./goals.js";

/**
 * The DAG from goal trees: nodes are goal results, edges the work that led to them.
 * - Top-level goals form a chain from START; each edge carries its goal's cumulative stats.
 * - Expanding a goal's edge replaces the goal with its sub-goals, as the seed draws it:
 *   prev → 2.1 → 2.2 → 3. The edge into the first sub-goal carries the goal's collapse control and
 *   its own work (self stats: the messages filed under the goal itself). Nested goals expand the same way.
 * - Expanding an `agent_call` goal fans out one branch per sub-trace: prev → [sub-trace] → goal;
 *   a branch expands into that sub-trace's own goals once they are loaded.
 * - An abandoned goal is a grey dead end off the node before it; the chain goes on without it.
 */

export interface DagNode {
  id: string;
  kind: "start" | "goal" | "subtrace";
  title: string;
  display: string;
  status: string;
  abandoned: boolean;
  summary?: string;
}

export interface DagEdge {
  id: string;
  source: string;
  target: string;
  /** Whose messages the edge stands for: a goal of a trace, or a whole sub-trace (no goal id). */
  traceId: string;
  goalId?: string;
  title: string;
  stats?: Stats;
  statsKind?: "cumulative" | "self" | "subtrace";
  /** Key to toggle in the expanded set, when the edge can expand or collapse. */
  toggleKey?: string;
  expanded: boolean;
  abandoned: boolean;
  /**
   * The expanded goals this edge opens (outermost first): their nodes were replaced by their
   * sub-goals, so their collapse control and their own messages ride on the edge into the first one.
   */
  groups?: DagGroup[];
}

export interface DagGroup {
  traceId: string;
  goalId: string;
  title: string;
  toggleKey: string;
  stats: Stats;
}

export interface Dag {
  nodes: DagNode[];
  edges: DagEdge[];
}

export const goalKey = (traceId: string, goalId: string) => `${traceId}#${goalId}`;
export const subTraceKey = (traceId: string) => `sub#${traceId}`;

export function buildDag(
  traceId: string,
  tree: GoalTreeView | null,
  expanded: ReadonlySet<string>,
  subTrees: ReadonlyMap<string, GoalTreeView | null>,
): Dag {
  const nodes: DagNode[] = [{ id: "start", kind: "start", title: "Start", display: "", status: "", abandoned: false }];
  const edges: DagEdge[] = [];
  const edge = (e: Omit<DagEdge, "id">) => edges.push({ ...e, id: `${e.source}->${e.target}` });

  const chain = (tid: string, goals: readonly GoalView[], kids: Map<string | null, GoalView[]>, from: string, grey: boolean) => {
    let prev = from;
    for (const goal of goals) {
      const id = `${tid}:${goal.id}`;
      const abandoned = grey || goal.status === "abandoned";
      const children = kids.get(goal.id) ?? [];
      const key = goalKey(tid, goal.id);
      const isAgentCall = goal.type === "agent_call" && goal.subTraceIds.length > 0;
      const canExpand = children.length > 0 || isAgentCall;
      const open = canExpand && expanded.has(key);
      const base = { traceId: tid, goalId: goal.id, title: `${goal.display} ${goal.description}`, abandoned };
      if (open && children.length > 0) {
        // The goal gives way to its sub-goals; the chain goes on from the last of them.
        const first = edges.length;
        const last = chain(tid, children, kids, prev, abandoned);
        const into = edges[first];
        if (into) {
          const group: DagGroup = { traceId: tid, goalId: goal.id, title: base.title, toggleKey: key, stats: goal.selfStats };
          into.groups = [group, ...(into.groups ?? [])];
        }
        if (!abandoned) prev = last;
        continue;
      }
      const node: DagNode = { id, kind: "goal", title: goal.description, display: goal.display, status: goal.status, abandoned };
      if (goal.summary) node.summary = goal.summary;
      nodes.push(node);
      if (!open) {
        edge({
          ...base,
          source: prev,
          target: id,
          stats: goal.cumulativeStats,
          statsKind: "cumulative",
          expanded: false,
          ...(canExpand ? { toggleKey: key } : {}),
        });
      } else {
        for (const subId of goal.subTraceIds) {
          const info = goal.subTraceMetadata[subId];
          const subNodeId = `sub:${subId}`;
          const subKey = subTraceKey(subId);
          const subTree = subTrees.get(subId);
          const subOpen = expanded.has(subKey) && subTree && subTree.goals.length > 0;
          nodes.push({
            id: subNodeId,
            kind: "subtrace",
            title: info?.task || subId,
            display: subId.slice(subId.lastIndexOf("@") + 1),
            status: info?.status ?? "",
            abandoned,
            ...(info?.summary ? { summary: info.summary } : {}),
          });
          const subBase = { traceId: subId, title: `sub-trace ${info?.task || subId}`, abandoned };
          if (subOpen && subTree) {
            const subKids = childrenOf(subTree.goals);
            const last = chain(subId, subKids.get(null) ?? [], subKids, prev, abandoned);
            edge({ ...subBase, source: last, target: subNodeId, expanded: true, toggleKey: subKey });
          } else {
            edge({
              ...subBase,
              source: prev,
              target: subNodeId,
              ...(info?.stats ? { stats: info.stats, statsKind: "subtrace" as const } : {}),
              expanded: false,
              toggleKey: subKey,
            });
          }
          edge({ traceId: tid, goalId: goal.id, title: base.title, source: subNodeId, target: id, expanded: true, abandoned });
        }
        // The goal's own messages (the call that started the sub-traces) label its collapse control.
        const own = edges[edges.length - 1] as DagEdge;
        own.stats = goal.selfStats;
        own.statsKind = "self";
        own.toggleKey = key;
      }
      if (!abandoned) prev = id;
    }
    return prev;
  };

  if (tree) {
    const kids = childrenOf(tree.goals);
    chain(traceId, kids.get(null) ?? [], kids, "start", false);
  }
  return { nodes, edges };
}

/** The stats as an edge label shows them; `withPreview` adds the tool preview (`glob → read × 2`). */
export function statsText(stats: Stats | undefined, withPreview = true): string {
  if (!stats) return "";
  const parts = [`${stats.messageCount} msg`];
  if (stats.totalTokens)
    parts.push(`${stats.totalTokens >= 10_000 ? `${(stats.totalTokens / 1000).toFixed(1)}k` : stats.totalTokens} tok`);
  if (stats.totalCost) parts.push(`$${stats.totalCost.toFixed(stats.totalCost < 0.01 ? 4 : 2)}`);
  if (withPreview && stats.preview) parts.push(stats.preview);
  return parts.join(" · ");
}
