import { isArborError } from "../errors.js";
import { isRunEventRecord, runEventInput } from "../events/run-event-records.js";
import { tallyRun } from "../loop/resume-point.js";
import { RUN_ERROR_ENTRY_TYPE, RunErrorDataSchema } from "../loop/run-error.js";
import type { RunResult } from "../loop/types.js";
import type { Entry } from "../model/entry.js";
import type { SessionMeta } from "../model/session.js";
import type { StoredEvent } from "../store/event-records.js";
import { DEFAULT_LEASE_TTL_MS, withLease } from "../store/lease.js";
import type { Store } from "../store/store.js";
import { finalEvent } from "./run-outcome.js";

/*
 * A run stores its outcome in its session (completed, failed, aborted) under its lease, gives the
 * lease back, and then logs its last event (`done` or `error`): so a client that reads the ending
 * finds the session free. A process that dies between the two (kill -9, a lost machine) leaves a
 * finished session whose log's latest run has no ending: a reader of its stream elsewhere would wait
 * for it, or stop without one. Here such a run is recognised and its ending written, from the
 * journal (the run's answer, steps, tokens and cost, as a run tallies them), once the session has
 * stayed so longer than a live process takes to log an ending, and under the session's lease, so
 * only one process writes it and never while another run drives the session.
 */

/**
 * How long after a run stored its outcome its own process may still be logging its ending: a lease's
 * life. Between the two a live process only gives its lease back and appends the ending; one stalled
 * longer than a lease lives is counted dead everywhere else (its leases lapse), and so it is here. It
 * bounds how late a watcher gets the ending of a run whose process died at that moment (10 s before,
 * the longest takeovers of the chaos checker).
 */
export const UNENDED_GRACE_MS = DEFAULT_LEASE_TTL_MS;

/** Log records read per page while looking back for the latest run event. */
const PAGE = 256;

/** The session's latest run event in its log (watch events and debug records are passed over). */
async function latestRunRecord(store: Store, sessionId: string): Promise<StoredEvent | undefined> {
  for (let hi = await store.lastEventId(sessionId); hi > 0; hi -= PAGE) {
    const from = Math.max(0, hi - PAGE);
    const page = await store.listEvents(sessionId, { after: from, limit: hi - from });
    if (page.length === 0) return undefined;
    const found = page.findLast(isRunEventRecord);
    if (found) return found;
  }
  return undefined;
}

const finished = (meta: SessionMeta | undefined): meta is SessionMeta =>
  meta !== undefined && meta.status !== undefined && meta.status !== "running" && meta.status !== "interrupted";

/**
 * Whether the session is stored finished while its log's latest run has no ending: its driver died
 * after storing the outcome and before logging the ending (or is about to log it, within the grace).
 */
export async function lacksEnding(store: Store, sessionId: string): Promise<boolean> {
  if (!finished(await store.getSession(sessionId))) return false;
  const last = await latestRunRecord(store, sessionId);
  return last !== undefined && last.type !== "run.done" && last.type !== "run.error";
}

/** The run's result as its journal tells it: what the ending it never logged would have carried. */
function resultFromJournal(meta: SessionMeta, path: readonly Entry[]): RunResult {
  const { tally } = tallyRun(path);
  const status = meta.status === "completed" ? "done" : meta.status === "aborted" ? "aborted" : "error";
  const recorded = path.findLast((e) => e.type === "custom" && e.customType === RUN_ERROR_ENTRY_TYPE);
  const error = RunErrorDataSchema.safeParse(recorded?.type === "custom" ? recorded.data : undefined);
  return {
    sessionId: meta.id,
    status,
    text: tally.lastText,
    steps: tally.steps,
    usage: { ...tally.usage },
    cost: tally.cost,
    ...(tally.costKnown ? {} : { costKnown: false }),
    ...(status === "aborted" ? { error: { code: "aborted", message: "The run was aborted." } } : {}),
    ...(status === "error"
      ? {
          error: error.success
            ? { code: error.data.code, message: error.data.message }
            : { code: "run_failed", message: "The run failed; its session holds what it did." },
        }
      : {}),
  };
}

/**
 * For a reader that found no driver: true while the session lacks its latest run's ending (it should
 * wait), writing that ending once the grace is over; the reader then reads it from the log.
 */
export async function awaitEnding(store: Store, sessionId: string, graceMs = UNENDED_GRACE_MS): Promise<boolean> {
  if (!(await lacksEnding(store, sessionId).catch(() => false))) return false;
  await endUnendedRun(store, sessionId, graceMs).catch(() => false);
  return true;
}

/**
 * Logs the ending the session's latest run lacks, once its outcome has been stored for longer than
 * `graceMs` (default `UNENDED_GRACE_MS`). True when it wrote one; false when none is needed, it is too soon, or another
 * process holds the session (a new run: it logs endings of its own).
 */
export async function endUnendedRun(store: Store, sessionId: string, graceMs = UNENDED_GRACE_MS): Promise<boolean> {
  const meta = await store.getSession(sessionId);
  if (!finished(meta) || Date.now() - Date.parse(meta.updatedAt) < graceMs) return false;
  if (!(await lacksEnding(store, sessionId))) return false;
  try {
    return await withLease(store, sessionId, "ending a run whose process died before it logged its end", async () => {
      // Under the lease: a run that started since, or another process that wrote the ending first, wins.
      const current = await store.getSession(sessionId);
      if (!finished(current) || !(await lacksEnding(store, sessionId))) return false;
      const ending = { ...finalEvent(resultFromJournal(current, await store.getActivePath(sessionId))), session_id: sessionId };
      await store.appendEvents(sessionId, [runEventInput(ending as Parameters<typeof runEventInput>[0])]);
      return true;
    });
  } catch (err) {
    if (isArborError(err, "session_busy")) return false;
    throw err;
  }
}
