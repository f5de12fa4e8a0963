import { ArborError } from "@arbor/core";
import type { RunStreams } from "./streams/run-streams.js";

/** Tree edits would race the running loop's appends, so they wait for an idle session (409 until then). */
export function requireIdle(streams: RunStreams, sessionId: string, what: string): void {
  if (streams.isBusy(sessionId)) {
    throw new ArborError(
      "session_busy",
      `Session ${sessionId} has a run in progress, so it cannot ${what} now; wait for its done event or POST /api/sessions/${sessionId}/abort.`,
    );
  }
}
