import type { RunHandle, RunResult } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { ServerContext } from "../context.js";

/**
 * Starts recording a run this server started into its session's event log, and logs
 * `trace_completed` with the session's totals once every event is recorded and the run has ended.
 * Returns a reader from the run's first event. A client that disconnects never stops the run.
 */
export function recordRun({ runtime, store, watch }: ServerContext, handle: RunHandle): RunEventReader {
  const { reader, recorded } = runtime.events.record(handle);
  void recorded
    .then(() => handle.result)
    .then((result) => publishTraceCompleted({ store, watch }, result))
    .catch(() => {});
  return reader;
}

async function publishTraceCompleted({ store, watch }: Pick<ServerContext, "store" | "watch">, result: RunResult): Promise<void> {
  const meta = await store.getSession(result.sessionId).catch(() => undefined);
  if (!meta) return;
  await watch.publish(result.sessionId, {
    event: "trace_completed",
    status: result.status,
    stats: { total_messages: meta.totalMessages, total_tokens: meta.totalTokens, total_cost: meta.totalCost },
  });
}
