import { type Kysely, sql } from "kysely";
import type { ArborDatabase } from "./tables.js";

/**
 * Whether a PostgreSQL error says the connection is gone (its backend terminated, the server shut
 * down, the link cut): node-postgres reports these by SQLSTATE class 08 and 57P, or by message.
 */
export function connectionLost(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (code.startsWith("08") || code.startsWith("57P") || code === "ECONNRESET" || code === "EPIPE"))
    return true;
  const message = err instanceof Error ? err.message : "";
  return /Connection terminated|not queryable|connection error|ECONNRESET/i.test(message);
}

/**
 * Attempts of a PostgreSQL statement or transaction whose connection was lost before it was known to
 * take effect. Terminated backends end one after another, so the pool may hand out several dead
 * connections in a row; the waits between attempts (`reconnectPause`) let their notices arrive and
 * span a short network cut: 50 ms doubling, 1.55 s in all.
 */
export const PG_ATTEMPTS = 6;

/** The pause before attempt `attempt + 1` after a lost connection. */
export function reconnectPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50 * 2 ** (attempt - 1)));
}

/** How long to wait for the backend of a lost COMMIT to be gone before asking how it ended. */
const BACKEND_GONE_MS = 5_000;

/** Who ran a transaction: its 64-bit transaction id and the backend that held it. */
interface TransactionRef {
  xid: string;
  pid: number;
}

/**
 * A PostgreSQL transaction, run again (up to `PG_ATTEMPTS`) on a fresh connection when the one it
 * used was lost before it was known to commit, so a cluster instance whose backends are terminated
 * keeps its runs going instead of failing the write at hand:
 * - lost before COMMIT was sent: nothing of it was committed; its work (reads and writes under the
 *   session's row lock) is done afresh.
 * - lost during COMMIT: it may or may not have committed. Its transaction id, taken just before
 *   COMMIT, settles which (`commitOutcome`): committed, the result stands and nothing runs twice;
 *   aborted, it is done afresh; still unknown, the error goes to the caller as before.
 * The id costs one round trip per transaction; it is what makes an acknowledged write neither lost
 * nor doubled when the link dies at the worst moment.
 */
export async function pgTransaction<T>(db: Kysely<ArborDatabase>, work: (trx: Kysely<ArborDatabase>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let ref: TransactionRef | undefined;
    let result: T | undefined;
    try {
      return await db.connection().execute(async (c) => {
        await sql`begin`.execute(c);
        try {
          result = await work(c);
        } catch (err) {
          await sql`rollback`.execute(c).catch(() => undefined);
          throw err;
        }
        const { rows } = await sql<TransactionRef>`select txid_current()::text as xid, pg_backend_pid() as pid`.execute(c);
        ref = rows[0];
        await sql`commit`.execute(c);
        return result as T;
      });
    } catch (err) {
      if (!connectionLost(err)) throw err;
      if (ref) {
        const outcome = await commitOutcome(db, ref).catch(() => "unknown" as const);
        if (outcome === "committed") return result as T;
        if (outcome === "unknown") throw err;
      }
      if (attempt >= PG_ATTEMPTS) throw err;
      await reconnectPause(attempt);
    }
  }
}

/**
 * How a transaction whose COMMIT got no answer ended, asked on a fresh connection. Its backend may
 * still be alive (a cut link leaves it waiting for the COMMIT): it is terminated first, if it still
 * holds that transaction, so the answer cannot change after it is read. `txid_status` then says
 * committed or aborted; anything else (the id too old to know, the database unreachable) is unknown.
 */
async function commitOutcome(db: Kysely<ArborDatabase>, ref: TransactionRef): Promise<"committed" | "aborted" | "unknown"> {
  // backend_xid is the 32-bit id; txid_current() adds the epoch above it.
  const holding = sql`pid = ${ref.pid} and backend_xid::text::bigint = ${ref.xid}::bigint % 4294967296`;
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where ${holding}`.execute(db);
  const until = Date.now() + BACKEND_GONE_MS;
  for (;;) {
    const { rows } = await sql`select 1 from pg_stat_activity where ${holding}`.execute(db);
    if (rows.length === 0) break;
    if (Date.now() > until) return "unknown";
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { rows } = await sql<{ status: string | null }>`select txid_status(${ref.xid}::bigint) as status`.execute(db);
  const status = rows[0]?.status;
  return status === "committed" ? "committed" : status === "aborted" ? "aborted" : "unknown";
}
