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
 * Wakes the interrupted runs of a store, in the background, and says so: one line when a run is
 * taken up and one when it ends. `sweep` looks once (at start-up, then every `RESUME_SWEEP_MS` while
 * the server runs: a run whose driver dies later, or whose dead driver's lease was still live at
 * start-up, is taken up then). A run another process took up first ends with `session_busy` or
 * `session_not_interrupted`, which is reported and harmless.
 */
export class InterruptedRuns {
  /** Sessions resumed here whose run has not ended: a later sweep must not take them up twice. */
  private readonly resuming = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<string[]> | undefined;

  constructor(
    private readonly store: Store,
    private readonly runtime: Runtime,
    private readonly log: (line: string) => void,
  ) {}

  /** Takes up every interrupted run not yet taken up here; returns their ids. */
  sweep(): Promise<string[]> {
    // One sweep at a time: a slow listing never overlaps the next.
    this.sweeping ??= this.resumeAll().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** Sweeps every `everyMs` until `stop`; a failed sweep is reported and the next one tries again. */
  every(everyMs: number): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.log(`arbor serve: looking for interrupted runs failed: ${String(err)}`));
    }, everyMs);
    this.timer.unref();
  }

  /** Stops sweeping and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  private async resumeAll(): Promise<string[]> {
    const ids = (await interruptedSessions(this.store)).filter((id) => !this.resuming.has(id));
    for (const id of ids) this.resume(id);
    return ids;
  }

  private resume(id: string): void {
    this.resuming.add(id);
    // The runtime records the run like a chat's, so a client can follow its stream and resume it too;
    // following it here drops the handle's own copy of the events, which nobody reads.
    const handle = this.runtime.runs.resume(id);
    void this.runtime.events.follow(handle);
    this.log(`arbor serve: resuming the interrupted run of session ${id}`);
    void handle.result.then((r) => {
      this.resuming.delete(id);
      this.log(
        r.status === "done"
          ? `arbor serve: session ${id} resumed and finished (${r.steps} steps)`
          : `arbor serve: session ${id} resumed and ended ${r.status}${r.error ? `: ${r.error.code}: ${r.error.message}` : ""}`,
      );
    });
  }
}
