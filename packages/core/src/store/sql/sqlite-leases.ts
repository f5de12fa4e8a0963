import type BetterSqlite3 from "better-sqlite3";
import type { LeaseHolder } from "../lease.js";
import { type SqlConnection, sqliteNow } from "./connect.js";
import { liveHolder } from "./leases.js";
import type { LeasesTable } from "./tables.js";

/**
 * Taking and giving back a session's lease on SQLite, on prepared statements: every run takes one
 * and gives it back, and through Kysely the take's transaction built, compiled and awaited each of
 * its statements (~3x the CPU). The same rows as `takeLease` and `dropLease`. The take runs in one
 * IMMEDIATE transaction, which holds the database's write lock from its start: the session row lock
 * `takeLease` takes first is that same lock on SQLite, so the session row is not read. Both run
 * under the SQLite gate when a transaction holds the one connection (see `sqliteNow`).
 */
export class SqliteLeaseRows {
  private readonly takeNow: (sessionId: string, holder: LeaseHolder, ttlMs: number) => LeaseHolder | undefined;
  private readonly dropNow: (sessionId: string, token: string) => void;

  constructor(private readonly conn: SqlConnection & { sqlite: BetterSqlite3.Database }) {
    const handle = conn.sqlite;
    const select = handle.prepare<[string], Pick<LeasesTable, "holder" | "expires_at" | "token">>(
      "select holder, expires_at, token from arbor_leases where session_id = ?",
    );
    const drop = handle.prepare<[string, string]>("delete from arbor_leases where session_id = ? and token = ?");
    const insert = handle.prepare<[string, string, string, number]>(
      "insert into arbor_leases (session_id, token, holder, expires_at) values (?, ?, ?, ?)",
    );
    const take = handle.transaction((sessionId: string, holder: LeaseHolder, ttlMs: number): LeaseHolder | undefined => {
      const row = select.get(sessionId);
      const current = liveHolder(row);
      if (current) return current;
      if (row) drop.run(sessionId, row.token);
      insert.run(sessionId, holder.token, JSON.stringify(holder), Date.now() + ttlMs);
      return undefined;
    });
    this.takeNow = (sessionId, holder, ttlMs) => take.immediate(sessionId, holder, ttlMs);
    this.dropNow = (sessionId, token) => {
      drop.run(sessionId, token);
    };
  }

  /** Takes the lease unless a live holder has it; returns that holder then. */
  take(sessionId: string, holder: LeaseHolder, ttlMs: number): Promise<LeaseHolder | undefined> {
    return sqliteNow(this.conn, () => this.takeNow(sessionId, holder, ttlMs));
  }

  drop(sessionId: string, token: string): Promise<void> {
    return sqliteNow(this.conn, () => this.dropNow(sessionId, token));
  }
}
