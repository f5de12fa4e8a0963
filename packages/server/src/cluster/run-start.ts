import { isArborError, type RunEvent, type RunHandle, type Store } from "@arbor/core";

/** The errors of a run's start that found the session already taken or finished: nothing to record. */
const NOT_WOKEN = new Set(["session_busy", "session_not_interrupted", "session_not_found"]);

/**
 * The handle once its run is known to have started, or the code of the error its first event
 * refused it with (the session was taken or finished meanwhile), so that refusal is neither logged
 * as the run's end nor written to the session's event log, where its watchers would take it for one.
 */
export async function started(handle: RunHandle): Promise<{ handle: RunHandle } | { refused: string }> {
  const it = handle[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return { refused: "ended" };
  const event = first.value as RunEvent;
  const code = event.type === "error" ? ((event as { code?: string }).code ?? "") : "";
  if (NOT_WOKEN.has(code)) {
    await handle.result;
    return { refused: code };
  }
  let gave = false;
  const rest: AsyncIterator<RunEvent> = {
    next: () => {
      if (!gave) {
        gave = true;
        return Promise.resolve(first);
      }
      return it.next();
    },
  };
  return {
    handle: {
      sessionId: handle.sessionId,
      result: handle.result,
      abort: (reason) => handle.abort(reason),
      [Symbol.asyncIterator]: () => rest,
    },
  };
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
