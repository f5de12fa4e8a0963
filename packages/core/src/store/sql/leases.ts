import type { Kysely } from "kysely";
import { holderAlive, type LeaseHolder, parseHolder } from "../lease.js";
import { inTransaction, type SqlConnection } from "./connect.js";
import { lockSessionRow } from "./queries.js";
import { isUniqueViolation } from "./sql-errors.js";
import type { ArborDatabase, LeasesTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/** A stored lease's holder if it is still alive. */
export function liveHolder(row: Pick<LeasesTable, "holder" | "expires_at" | "token"> | undefined): LeaseHolder | undefined {
  if (!row) return undefined;
  const holder = parseHolder(row.holder);
  // A row that does not parse was not written by this code: trusted until it expires, never broken early.
  if (!holder) {
    return Date.now() <= Number(row.expires_at)
      ? { pid: 0, host: "unknown", purpose: "an unknown process", since: "", token: row.token }
      : undefined;
  }
  return holderAlive(holder, Number(row.expires_at)) ? holder : undefined;
}

export async function readLease(db: Db, sessionId: string): Promise<LeasesTable | undefined> {
  return db.selectFrom("arbor_leases").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
}

/**
 * Takes the lease unless a live holder has it; returns that holder then. The session's row lock is
 * taken first (when the session exists), so the lease starts between two writes of any other process.
 */
export async function takeLease(
  conn: SqlConnection,
  sessionId: string,
  holder: LeaseHolder,
  ttlMs: number,
): Promise<LeaseHolder | undefined> {
  try {
    return await inTransaction(conn, async (trx) => {
      await lockSessionRow(trx, conn.kind, sessionId);
      const row = await trx
        .selectFrom("arbor_leases")
        .selectAll()
        .where("session_id", "=", sessionId)
        .$if(conn.kind !== "sqlite", (q) => q.forUpdate())
        .executeTakeFirst();
      const current = liveHolder(row);
      if (current) return current;
      if (row) await trx.deleteFrom("arbor_leases").where("session_id", "=", sessionId).where("token", "=", row.token).execute();
      await trx
        .insertInto("arbor_leases")
        .values({ session_id: sessionId, token: holder.token, holder: JSON.stringify(holder), expires_at: Date.now() + ttlMs })
        .execute();
      return undefined;
    });
  } catch (err) {
    // Another process inserted the first lease of this session at the same moment.
    if (!isUniqueViolation(err)) throw err;
    return liveHolder(await readLease(conn.db, sessionId)) ?? holderUnknown();
  }
}

function holderUnknown(): LeaseHolder {
  return { pid: 0, host: "unknown", purpose: "another process", since: "", token: "" };
}

/** The heartbeat: false when the lease is no longer this holder's. */
export async function renewLease(db: Db, sessionId: string, token: string, ttlMs: number): Promise<boolean> {
  const r = await db
    .updateTable("arbor_leases")
    .set({ expires_at: Date.now() + ttlMs })
    .where("session_id", "=", sessionId)
    .where("token", "=", token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function dropLease(db: Db, sessionId: string, token: string): Promise<void> {
  await db.deleteFrom("arbor_leases").where("session_id", "=", sessionId).where("token", "=", token).execute();
}
