import type { Store } from "@arbor/core";
import { type Io, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";

/**
 * A prompt for a session another process is running steers that run instead of waiting for the
 * session to be free: the message is recorded at once and the driving run reads it before its next
 * model call. The runtime decides: false, having written nothing, when the session is free; a
 * session held by something other than a run (a compaction, a revert) is refused with session_busy.
 */
export async function steerIfDriven(io: Io, store: Store, sessionId: string, prompt: string, json: boolean): Promise<boolean> {
  const admitted = await withSessionRuntime(io, store, "arbor run", (runtime) =>
    runtime.runs.admit(sessionId, prompt, { onBusy: "steer" }),
  );
  if (admitted.kind === "free") return false;
  const by = admitted.driver ? ` (${admitted.driver.purpose})` : "";
  writeLines(
    io.stdout,
    json
      ? [JSON.stringify({ type: "steered", session_id: sessionId, message_id: admitted.messageId })]
      : [`Sent to the run in progress in session ${sessionId}${by}; it reads the message before its next model call.`],
  );
  return true;
}
