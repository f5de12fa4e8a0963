import type { RunDeps } from "./run-deps.js";
import type { RunResult } from "./types.js";

function traceStatus(status: RunResult["status"]): "completed" | "failed" | "aborted" {
  return status === "done" ? "completed" : status === "error" ? "failed" : "aborted";
}

/**
 * Marks the trace running or finished (with the title the run found, in the same write: each
 * session.json write is a rename, the largest cost of a short run); a failure to do so must not
 * change the run's outcome.
 */
export async function markTrace(
  deps: RunDeps,
  sessionId: string,
  status: RunResult["status"] | "running",
  title?: string,
): Promise<void> {
  const patch =
    status === "running"
      ? { status }
      : {
          status: traceStatus(status),
          completedAt: new Date(deps.clock.now()).toISOString(),
          ...(title !== undefined ? { title } : {}),
        };
  await deps.store.updateSession(sessionId, patch).catch(() => undefined);
}
