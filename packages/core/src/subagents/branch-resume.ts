import { ZERO_USAGE } from "../loop/run-context.js";
import type { RunResult } from "../loop/run-types.js";
import type { Entry, SubagentBatchEntry, SubagentResultEntry } from "../model/entry.js";
import type { Store } from "../store/store.js";

/**
 * What a resumed parent finds of a sub-agent batch its dead process had started. Every branch is a
 * session of its own with its own journal, so nothing here is remembered: it is read back from the
 * parent's path (the batch and the results it recorded) and from each branch's session.
 */

/** The batch the parent's tool call `callId` recorded on `path`, if it got that far. Pure. */
export function batchOfCall(path: readonly Entry[], callId: string): SubagentBatchEntry | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "subagent_batch" && entry.callId === callId) return entry;
  }
  return undefined;
}

/** The batch that started sub-trace `traceId` (a plan step's executor, say), if it was recorded. Pure. */
export function batchOfTrace(path: readonly Entry[], traceId: string): SubagentBatchEntry | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "subagent_batch" && entry.tasks.some((t) => t.subSessionId === traceId)) return entry;
  }
  return undefined;
}

/** The results of batch `batchId` the parent had recorded, by sub-trace id. Pure. */
export function recordedResults(path: readonly Entry[], batchId: string): Map<string, SubagentResultEntry> {
  const out = new Map<string, SubagentResultEntry>();
  for (const entry of path) {
    if (entry.type === "subagent_result" && entry.batchId === batchId) out.set(entry.subSessionId, entry);
  }
  return out;
}

/**
 * Where one branch stands: never started (its session was not created before the crash), cut off
 * with its parent (its run takes up where its journal stops), or ended (its run finished, only the
 * parent never recorded it: its result is read from its session, nothing runs again).
 */
export type BranchStanding = { kind: "new" } | { kind: "cut_off" } | { kind: "ended"; result: RunResult };

export async function branchStanding(store: Store, traceId: string): Promise<BranchStanding> {
  const meta = await store.getSession(traceId);
  if (!meta) return { kind: "new" };
  if (meta.status === "running" || meta.status === "interrupted") return { kind: "cut_off" };
  const path = await store.getActivePath(traceId);
  const status = meta.status === "failed" ? "error" : meta.status === "aborted" ? "aborted" : "done";
  return {
    kind: "ended",
    result: {
      sessionId: traceId,
      status,
      text: lastAnswer(path),
      steps: 0,
      usage: { ...ZERO_USAGE },
      cost: meta.totalCost,
      ...(status === "error"
        ? { error: { code: "failed", message: "The sub-agent's run failed before its parent recorded it." } }
        : {}),
    },
  };
}

/** The text of the last assistant message on the path: the branch's report. Pure. */
function lastAnswer(path: readonly Entry[]): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    return entry.message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  }
  return "";
}
