import { ArborError } from "../errors.js";
import type { Store } from "../store/store.js";

/**
 * Continue from any entry: picking a user message re-sends from its parent, so the new message
 * becomes its sibling on a new branch; picking any other entry moves the leaf to it, so the new
 * message follows it. Called by a run that holds the session, before it writes anything else.
 */
export async function continueFromEntry(store: Store, sessionId: string, entryId: string): Promise<void> {
  const entry = await store.getEntry(sessionId, entryId);
  if (!entry) {
    throw new ArborError(
      "entry_not_found",
      `Entry ${entryId} does not exist in session ${sessionId}; pick one from the session's snapshot.`,
    );
  }
  if (entry.type === "message" && entry.message.role === "user") {
    if (entry.parentId === null) await store.resetLeaf(sessionId);
    else await store.switchLeaf(sessionId, entry.parentId);
    return;
  }
  await store.switchLeaf(sessionId, entry.id);
}
