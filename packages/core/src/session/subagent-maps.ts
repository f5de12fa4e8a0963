import type { Entry } from "../model/entry.js";
import type { SubagentRuntime, ToolRuntimeRoute } from "../model/snapshot.js";

/**
 * The snapshot's sub-agent projections, keyed by batch id as the seed's store keeps them: each
 * batch's mode, goal, tasks and results (with how much of each branch's timeline its result kept),
 * and the tools the whole batch ran, summed over its branches. A client reads these rather than
 * parsing each result's raw metadata. Over every entry of the tree, not only the active path: a
 * batch on a side branch ran too. Pure.
 */
export function subagentMaps(entries: readonly Entry[]): {
  subagentRuntimeByBatchId: Record<string, SubagentRuntime>;
  toolRuntimeRoutesByBatchId: Record<string, ToolRuntimeRoute[]>;
} {
  const runtime = new Map<string, SubagentRuntime>();
  const routes = new Map<string, Map<string, ToolRuntimeRoute>>();
  const batchOf = (batchId: string): SubagentRuntime => {
    let batch = runtime.get(batchId);
    if (!batch) {
      batch = { batchEntryId: null, mode: null, tasks: [], results: [] };
      runtime.set(batchId, batch);
    }
    return batch;
  };
  for (const entry of entries) {
    if (entry.type === "subagent_batch") {
      const batch = batchOf(entry.batchId);
      batch.batchEntryId = entry.id;
      batch.mode = entry.mode;
      if (entry.goalId !== undefined) batch.goalId = entry.goalId;
      batch.tasks = entry.tasks.map((t) => ({ task: t.task, ...(t.subSessionId ? { subSessionId: t.subSessionId } : {}) }));
    } else if (entry.type === "subagent_result") {
      const m = entry.metadata;
      batchOf(entry.batchId).results.push({
        entryId: entry.id,
        subSessionId: entry.subSessionId,
        status: entry.status,
        processEvents: m.processEvents.length,
        evidenceSummaries: m.evidenceSummaries.length,
        ...(m.subagentProjection ? { diagnostics: m.subagentProjection.diagnostics } : {}),
      });
      const byTool = routes.get(entry.batchId) ?? new Map<string, ToolRuntimeRoute>();
      routes.set(entry.batchId, byTool);
      for (const raw of m.toolRuntimeRoutes) {
        const r = raw as Partial<ToolRuntimeRoute> | null;
        if (typeof r?.tool !== "string") continue;
        const sum = byTool.get(r.tool) ?? { tool: r.tool, calls: 0, errors: 0, totalDurationMs: 0 };
        sum.calls += num(r.calls);
        sum.errors += num(r.errors);
        sum.totalDurationMs += num(r.totalDurationMs);
        byTool.set(r.tool, sum);
      }
    }
  }
  return {
    subagentRuntimeByBatchId: Object.fromEntries(runtime),
    toolRuntimeRoutesByBatchId: Object.fromEntries([...routes].map(([id, byTool]) => [id, [...byTool.values()]])),
  };
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
