import { isArborError } from "@arbor/core";

/**
 * What a cluster instance does when its database does not answer at start-up (a network cut, the
 * database restarting, the instance restarted by a supervisor before the link came back): it tries
 * again, saying so, instead of exiting at once and leaving its restart to the supervisor's backoff.
 * A wrong URL, a refused login or a missing database is not waited for: those need a person.
 */

/** How long an instance waits for its database to answer before giving up (exit 1). */
export const REACH_DATABASE_MS = 60_000;

/** Failures that say the database could not be reached now, as opposed to refused or misnamed. */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|Connection terminated|timeout|the database system is (starting up|shutting down|in recovery mode)/i;

export function unreachable(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  // An ArborError of another code (a bad spec, a missing database) is the user's to fix.
  return (isArborError(err, "io_error") || !isArborError(err)) && UNREACHABLE.test(message);
}

/**
 * Runs `open` until it succeeds, retrying while the database is unreachable, with a pause that
 * doubles from 250 ms to 4 s, for at most `waitMs`; any other failure, or the last one, is thrown.
 */
export async function whileUnreachable<T>(
  what: string,
  open: () => Promise<T>,
  log: (line: string) => void,
  waitMs = REACH_DATABASE_MS,
): Promise<T> {
  const until = Date.now() + waitMs;
  for (let pause = 250; ; pause = Math.min(4_000, pause * 2)) {
    try {
      return await open();
    } catch (err) {
      if (!unreachable(err) || Date.now() + pause > until) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      log(`arbor serve: cannot reach the ${what} (${reason.split(". ")[0]}); trying again in ${(pause / 1000).toFixed(2)} s`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
