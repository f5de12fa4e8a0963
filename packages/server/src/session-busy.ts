import { ArborError, type Runtime } from "@arbor/core";
import { sessionBusy } from "@arbor/core/store";

/**
 * Tree edits would race a running loop's appends, so they wait for an idle session (409 until
 * then). The runtime is the one judge: its own runs and operations, and the store's lease for
 * drivers in other processes.
 */
export async function requireIdle(runtime: Runtime, sessionId: string, what: string): Promise<void> {
  const driver = await runtime.busy(sessionId);
  if (!driver) return;
  if (driver.where === "elsewhere") throw sessionBusy(sessionId, driver.holder);
  throw new ArborError(
    "session_busy",
    `Session ${sessionId} has a run in progress, so it cannot ${what} now; wait for its done event or POST /api/sessions/${sessionId}/abort.`,
  );
}
