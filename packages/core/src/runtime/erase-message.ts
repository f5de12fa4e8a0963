import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import { DELETE_ENTRY_TYPE } from "../session/delete-entry.js";
import { blobRefsIn } from "../session/purge-entry.js";
import type { EventWindow } from "../store/event-records.js";
import type { Store } from "../store/store.js";
import type { BlobStore } from "../tools/blob-store.js";
import { messageTrace } from "../trace/message-trace.js";

export interface EraseDeps {
  store: Store;
  /** Where truncated tool outputs and files were saved: the message's go with it. */
  blobs?: BlobStore;
  /** The LLM response cache: a recorded answer may repeat the message, and its key cannot tell which. */
  clearCache?: () => Promise<unknown>;
}

/** What a deletion erased, beside the entries themselves. */
export interface EraseResult {
  /** The `arbor.delete` entry that takes the message off the active path. */
  entry: Entry;
  /** The entries replaced by tombstones. */
  erased: string[];
  /** Saved outputs and files removed. */
  blobs: number;
  /** Event log records blanked (the runs that streamed the message). */
  events: number;
}

/**
 * Deletes a message for good (GDPR-style), in the session's slot (the caller holds its lease):
 * its entries become tombstones in the store (`Store.purgeEntries`), saved outputs only they
 * mention are removed from the blob store, the event log records of the runs that wrote it are
 * blanked, a title taken from it goes, and the LLM response cache is emptied. An
 * `arbor.delete` entry is recorded too, so the active path (and the model's context) goes on without
 * the message as before. Exports read the store, so they hold the tombstones from then on.
 */
export async function eraseMessage(deps: EraseDeps, sessionId: string, messageId: string): Promise<EraseResult> {
  const { store } = deps;
  const message = messageTrace(sessionId, await store.getActivePath(sessionId)).find((m) => m.id === messageId);
  if (!message) {
    throw new ArborError(
      "message_not_found",
      `No message ${messageId} on the active path of session ${sessionId}; the session's message trace lists them.`,
    );
  }
  const ids = message.entryIds;
  const path = await store.getActivePath(sessionId);
  const before = path.filter((e) => ids.includes(e.id));
  const refs = blobRefsIn(before);
  const window = runWindow(path, new Set(ids));
  const entry = await store.appendEntry(sessionId, {
    type: "custom",
    customType: DELETE_ENTRY_TYPE,
    data: { entryIds: ids, messageId: message.id },
  });
  await store.purgeEntries(sessionId, ids, { at: entry.timestamp, messageId: message.id });
  const events = window ? await store.purgeEvents(sessionId, window) : 0;
  await forgetTitle(store, sessionId, path, before);
  let blobs = 0;
  if (deps.blobs && refs.size > 0) {
    // A blob another entry of the session still mentions stays (the same bytes saved twice are one blob).
    const kept = blobRefsIn(await store.listEntries(sessionId));
    for (const ref of refs) if (!kept.has(ref) && (await deps.blobs.delete(ref))) blobs++;
  }
  await deps.clearCache?.();
  return { entry, erased: ids, blobs, events };
}

/**
 * When the runs that wrote the message streamed it: from its first entry to the next user message
 * after its last one that stays (a run echoes its question in every step's events until it ends).
 */
function runWindow(path: readonly Entry[], ids: ReadonlySet<string>): EventWindow | undefined {
  const first = path.findIndex((e) => ids.has(e.id));
  if (first < 0) return undefined;
  let last = first;
  for (let i = first; i < path.length; i++) if (ids.has(path[i]!.id)) last = i;
  const next = path.slice(last + 1).find((e) => e.type === "message" && e.message.role === "user" && !ids.has(e.id));
  return { from: path[first]!.timestamp, ...(next ? { to: next.timestamp } : {}) };
}

/** A title made from the session's first question says what it said: it goes when that question does. */
async function forgetTitle(store: Store, sessionId: string, path: readonly Entry[], erased: readonly Entry[]): Promise<void> {
  const firstQuestion = path.find((e) => e.type === "message" && e.message.role === "user");
  const meta = await store.getSession(sessionId);
  if (!meta?.title || !firstQuestion || !erased.some((e) => e.id === firstQuestion.id)) return;
  await store.updateSession(sessionId, { title: ERASED_TITLE });
}

/** The title a session gets when the question it was named after is deleted. */
export const ERASED_TITLE = "(first message deleted)";
