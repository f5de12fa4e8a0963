import { ArborError } from "../errors.js";
import { sessionBusy } from "../store/lease.js";
import type { Store } from "../store/store.js";

/**
 * Whether a session can be woken: it exists, no live process drives it, and its run was cut off
 * (stored as running with no driver). Asked before the lease (to name a live holder) and again
 * under it, since another process may have woken and finished it in between.
 */
export async function checkWakeable(store: Store, sessionId: string, leased: boolean): Promise<void> {
  const meta = await store.getSession(sessionId);
  if (!meta) {
    throw new ArborError("session_not_found", `No session ${sessionId} in this store; list them with arbor sessions list.`);
  }
  if (!leased) {
    const holder = await store.leaseHolder(sessionId);
    if (holder) throw sessionBusy(sessionId, holder);
  }
  // Under our own lease a cut-off run reads as running: we are its driver now.
  const cutOff = meta.status === "interrupted" || (leased && meta.status === "running");
  if (!cutOff) {
    throw new ArborError(
      "session_not_interrupted",
      `Session ${sessionId} is ${meta.status}, not interrupted: only a run whose process died mid-run can be resumed. Continue the session with a new prompt instead.`,
    );
  }
}
