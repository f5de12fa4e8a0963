import type { Store } from "@arbor/core";
import { steerSession } from "@arbor/core/session";
import { type Io, writeLines } from "../io.js";

/**
 * A prompt for a session another process is running steers that run instead of waiting for the
 * session to be free: the message is recorded at once and the driving run reads it before its next
 * model call. Returns false, having written nothing, when no live process drives the session.
 */
export async function steerIfDriven(io: Io, store: Store, sessionId: string, prompt: string, json: boolean): Promise<boolean> {
  const meta = await store.getSession(sessionId);
  const holder = meta?.status === "running" ? await store.leaseHolder(sessionId) : undefined;
  if (!holder) return false;
  const steered = await steerSession(store, async () => ({ where: "elsewhere", holder }), sessionId, prompt);
  writeLines(
    io.stdout,
    json
      ? [JSON.stringify({ type: "steered", session_id: sessionId, message_id: steered.messageId })]
      : [
          `Sent to the run in progress in session ${sessionId} (${holder.purpose}); it reads the message before its next model call.`,
        ],
  );
  return true;
}
