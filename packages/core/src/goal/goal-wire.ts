import type { Store } from "../store/store.js";
import { goalTreeOnPath } from "./goal-path.js";
import type { Goal, GoalStats, GoalTree, SubTraceMetadata } from "./goal-tree.js";

/**
 * The goal tree under the field names watchers and the trace API speak (`parent_id`, `self_stats`,
 * `message_count`, …), spelled out field by field: `sub_trace_metadata` is keyed by trace ids, which
 * a generic key converter would mangle. Pure.
 */

export type GoalStatsWire = {
  message_count: number;
  total_tokens: number;
  total_cost: number;
  preview?: string;
};

export type SubTraceMetadataWire = {
  task: string;
  status: string;
  summary?: string;
  last_message?: { role: string; description?: string; content?: string | null; created_at?: string } | null;
  stats: { message_count: number; total_tokens: number; total_cost: number };
};

export type GoalWire = {
  id: string;
  parent_id: string | null;
  type: Goal["type"];
  description: string;
  reason: string;
  status: Goal["status"];
  summary?: string;
  agent_call_mode?: string;
  sub_trace_ids?: string[];
  sub_trace_metadata?: Record<string, SubTraceMetadataWire>;
  self_stats: GoalStatsWire;
  cumulative_stats: GoalStatsWire;
  created_at: string;
  updated_at: string;
};

export type GoalTreeWire = {
  mission: string;
  current_id: string | null;
  goals: GoalWire[];
  next_id: number;
};

export function goalStatsToWire(stats: GoalStats): GoalStatsWire {
  return {
    message_count: stats.messageCount,
    total_tokens: stats.totalTokens,
    total_cost: stats.totalCost,
    ...(stats.preview !== undefined ? { preview: stats.preview } : {}),
  };
}

function subTraceToWire(meta: SubTraceMetadata): SubTraceMetadataWire {
  const last = meta.lastMessage;
  return {
    task: meta.task,
    status: meta.status,
    ...(meta.summary !== undefined ? { summary: meta.summary } : {}),
    ...(last === undefined
      ? {}
      : {
          last_message:
            last === null
              ? null
              : {
                  role: last.role,
                  ...(last.description !== undefined ? { description: last.description } : {}),
                  ...(last.content !== undefined ? { content: last.content } : {}),
                  ...(last.createdAt !== undefined ? { created_at: last.createdAt } : {}),
                },
        }),
    stats: { message_count: meta.stats.messageCount, total_tokens: meta.stats.totalTokens, total_cost: meta.stats.totalCost },
  };
}

export function goalToWire(goal: Goal): GoalWire {
  const metadata = goal.subTraceMetadata;
  return {
    id: goal.id,
    parent_id: goal.parentId,
    type: goal.type,
    description: goal.description,
    reason: goal.reason,
    status: goal.status,
    ...(goal.summary !== undefined ? { summary: goal.summary } : {}),
    ...(goal.agentCallMode !== undefined ? { agent_call_mode: goal.agentCallMode } : {}),
    ...(goal.subTraceIds !== undefined ? { sub_trace_ids: [...goal.subTraceIds] } : {}),
    ...(metadata !== undefined
      ? { sub_trace_metadata: Object.fromEntries(Object.entries(metadata).map(([id, m]) => [id, subTraceToWire(m)])) }
      : {}),
    self_stats: goalStatsToWire(goal.selfStats),
    cumulative_stats: goalStatsToWire(goal.cumulativeStats),
    created_at: goal.createdAt,
    updated_at: goal.updatedAt,
  };
}

export function goalTreeToWire(tree: GoalTree): GoalTreeWire {
  return { mission: tree.mission, current_id: tree.currentId, goals: tree.goals.map(goalToWire), next_id: tree.nextId };
}

/**
 * The tree at a trace's leaf as watchers read it, null where it has none: what the runtime hands its
 * watch hub for `connected` events.
 */
export function watchedGoalTree(store: Pick<Store, "getActivePath">): (traceId: string) => Promise<GoalTreeWire | null> {
  return async (traceId) => {
    const tree = goalTreeOnPath(await store.getActivePath(traceId));
    return tree ? goalTreeToWire(tree) : null;
  };
}
