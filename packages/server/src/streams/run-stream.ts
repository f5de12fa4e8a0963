import type { RunHandle } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { ServerContext } from "../context.js";

/**
 * A reader of a run this server started, from its first event as logged. The runtime records the
 * run and publishes its watch events (`trace_completed` included) whoever reads it; the server only
 * streams it. A client that disconnects never stops the run.
 */
export function followRun({ runtime }: ServerContext, handle: RunHandle): RunEventReader {
  return runtime.events.follow(handle);
}
