import type { Runtime, Store } from "@arbor/core";

/** Sessions listed per page while looking for interrupted runs. */
const PAGE = 500;

/**
 * The top-level sessions whose run was cut off by its process dying. A sub-trace is left to its
 * parent: the parent's resumed run answers the call that started it.
 */
async function interruptedSessions(store: Store): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ limit: PAGE, parentSessionId: null, ...(cursor ? { cursor } : {}) });
    for (const s of page.sessions) if (s.status === "interrupted") ids.push(s.id);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

/**
 * Wakes every interrupted run in the store, in the background, and says so: one line when a run is
 * taken up and one when it ends. A run another process took up first ends with `session_busy` or
 * `session_not_interrupted`, which is reported and harmless. Returns the ids taken up.
 */
export async function resumeInterruptedRuns(store: Store, runtime: Runtime, log: (line: string) => void): Promise<string[]> {
  const ids = await interruptedSessions(store);
  for (const id of ids) {
    // The runtime records the run like a chat's, so a client can follow its stream and resume it too;
    // following it here drops the handle's own copy of the events, which nobody reads.
    const handle = runtime.runs.resume(id);
    void runtime.events.follow(handle);
    log(`arbor serve: resuming the interrupted run of session ${id}`);
    void handle.result.then((r) =>
      log(
        r.status === "done"
          ? `arbor serve: session ${id} resumed and finished (${r.steps} steps)`
          : `arbor serve: session ${id} resumed and ended ${r.status}${r.error ? `: ${r.error.code}: ${r.error.message}` : ""}`,
      ),
    );
  }
  return ids;
}
