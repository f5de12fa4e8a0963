import { isArborError, type RunEvent, type RunHandle, type Store } from "@arbor/core";

/** The errors of a run's start that found the session already taken or finished: nothing to record. */
const NOT_WOKEN = new Set(["session_busy", "session_not_interrupted", "session_not_found"]);

/**
 * The handle once its run is known to have started, or the code of the error its first event
 * refused it with (the session was taken or finished meanwhile), so that refusal is not logged as
 * the run's end (the runtime writes no event of a run refused for another driver to the session's log).
 * The handle's own stream is released after its first event: the runtime records the run, and
 * readers follow it from the log.
 */
export async function started(handle: RunHandle): Promise<{ handle: RunHandle } | { refused: string }> {
  const it = handle[Symbol.asyncIterator]();
  const first = await it.next();
  await it.return?.();
  if (first.done) return { refused: "ended" };
  const event = first.value as RunEvent;
  const code = event.type === "error" ? ((event as { code?: string }).code ?? "") : "";
  if (NOT_WOKEN.has(code)) {
    await handle.result;
    return { refused: code };
  }
  return { handle };
}

/**
 * The keys of the queued chats whose user messages the session's journal holds; undefined when the
 * session is gone. A failed read throws (the job is retried), never reads as "not written".
 */
export async function writtenChatKeys(store: Store, sessionId: string): Promise<Set<string> | undefined> {
  try {
    const keys = new Set<string>();
    for (const e of await store.listEntries(sessionId)) {
      if (e.type === "message" && e.message.role === "user" && e.message.requestKey !== undefined) keys.add(e.message.requestKey);
    }
    return keys;
  } catch (err) {
    if (isArborError(err, "session_not_found")) return undefined;
    throw err;
  }
}
