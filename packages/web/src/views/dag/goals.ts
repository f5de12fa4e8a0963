/**
 * Goal trees as the DAG reads them. Core's `GoalTree` is camelCase; other producers send
 * snake_case (`parent_id`, `self_stats`, `sub_trace_ids`); this accepts either, so the view works
 * whichever the server sends, and computes the display numbers the model sees (abandoned goals skipped).
 */
export interface Stats {
  messageCount: number;
  totalTokens: number;
  totalCost: number;
  preview?: string;
}

export interface SubTraceInfo {
  task: string;
  status: string;
  summary?: string;
  stats?: Stats;
}

export interface GoalView {
  id: string;
  parentId: string | null;
  type: string;
  description: string;
  status: string;
  summary?: string;
  subTraceIds: string[];
  subTraceMetadata: Record<string, SubTraceInfo>;
  selfStats: Stats;
  cumulativeStats: Stats;
  /** "1", "2.1", … over non-abandoned goals; "✗" for abandoned ones. */
  display: string;
}

export interface GoalTreeView {
  mission: string;
  currentId: string | null;
  goals: GoalView[];
}

type Raw = Record<string, unknown>;

const pick = (o: Raw, camel: string, snake: string): unknown => o[camel] ?? o[snake];

export function toStats(value: unknown): Stats {
  const o = (value ?? {}) as Raw;
  const stats: Stats = {
    messageCount: Number(pick(o, "messageCount", "message_count") ?? 0),
    totalTokens: Number(pick(o, "totalTokens", "total_tokens") ?? 0),
    totalCost: Number(pick(o, "totalCost", "total_cost") ?? 0),
  };
  if (typeof o.preview === "string") stats.preview = o.preview;
  return stats;
}

function toSubTraceInfo(value: unknown): SubTraceInfo {
  const o = (value ?? {}) as Raw;
  const info: SubTraceInfo = { task: String(o.task ?? ""), status: String(o.status ?? "") };
  if (typeof o.summary === "string") info.summary = o.summary;
  if (o.stats) info.stats = toStats(o.stats);
  return info;
}

export function normalizeGoalTree(value: unknown): GoalTreeView | null {
  if (!value || typeof value !== "object") return null;
  const o = value as Raw;
  const rawGoals = Array.isArray(o.goals) ? (o.goals as Raw[]) : [];
  const goals: GoalView[] = rawGoals.map((g) => {
    const meta = (pick(g, "subTraceMetadata", "sub_trace_metadata") ?? {}) as Record<string, unknown>;
    const goal: GoalView = {
      id: String(g.id),
      parentId: (pick(g, "parentId", "parent_id") as string | null | undefined) ?? null,
      type: String(g.type ?? "normal"),
      description: String(g.description ?? ""),
      status: String(g.status ?? "pending"),
      subTraceIds: ((pick(g, "subTraceIds", "sub_trace_ids") as string[] | undefined) ?? []).map(String),
      subTraceMetadata: Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, toSubTraceInfo(v)])),
      selfStats: toStats(pick(g, "selfStats", "self_stats")),
      cumulativeStats: toStats(pick(g, "cumulativeStats", "cumulative_stats")),
      display: "",
    };
    if (typeof g.summary === "string") goal.summary = g.summary;
    return goal;
  });
  number(goals);
  return { mission: String(o.mission ?? ""), currentId: (pick(o, "currentId", "current_id") as string | null) ?? null, goals };
}

/** The plan's numbering: siblings count 1, 2, … skipping abandoned goals, prefixed by the parent's number. */
function number(goals: GoalView[]): void {
  const byParent = childrenOf(goals);
  const walk = (parentId: string | null, prefix: string) => {
    let n = 0;
    for (const g of byParent.get(parentId) ?? []) {
      if (g.status === "abandoned") {
        g.display = "✗";
        walk(g.id, `${prefix}✗.`);
        continue;
      }
      g.display = `${prefix}${++n}`;
      walk(g.id, `${g.display}.`);
    }
  };
  walk(null, "");
}

export function childrenOf(goals: readonly GoalView[]): Map<string | null, GoalView[]> {
  const map = new Map<string | null, GoalView[]>();
  for (const g of goals) {
    const list = map.get(g.parentId) ?? [];
    list.push(g);
    map.set(g.parentId, list);
  }
  return map;
}

/** Applies a watch event's `affected_goals` (stats, status, summary) to the tree; unknown goals are ignored. */
export function applyAffectedGoals(tree: GoalTreeView, affected: readonly Raw[]): GoalTreeView {
  if (affected.length === 0) return tree;
  const byId = new Map(affected.map((a) => [String(a.goal_id), a]));
  return {
    ...tree,
    goals: tree.goals.map((g) => {
      const a = byId.get(g.id);
      if (!a) return g;
      const next = { ...g };
      if (a.self_stats) next.selfStats = toStats(a.self_stats);
      if (a.cumulative_stats) next.cumulativeStats = toStats(a.cumulative_stats);
      if (typeof a.status === "string") next.status = a.status;
      if (typeof a.summary === "string") next.summary = a.summary;
      return next;
    }),
  };
}
