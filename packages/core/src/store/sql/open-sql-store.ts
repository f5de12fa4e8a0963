import { resolve } from "node:path";
import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import { DEFAULT_MAX_EVENTS_PER_SESSION } from "../event-records.js";
import { DEFAULT_LEASE_TTL_MS } from "../lease.js";
import { withLockFile } from "../lock-file.js";
import { DEFAULT_MAX_ENTRY_BYTES } from "../prepare.js";
import { parseStoreSpec, type StoreSpec } from "../spec.js";
import { connectSql, currentSchema } from "./connect.js";
import { migrateToLatest } from "./migrations.js";
import { createDatabase, isMissingDatabase, missingDatabaseError } from "./missing-database.js";
import { toArborError } from "./sql-errors.js";
import { SqlStore } from "./sql-store.js";

const MIGRATION_LOCK = {
  purpose: "a schema migration",
  ttlMs: 60_000,
  waitMs: 60_000,
  timeout: () =>
    new ArborError("io_error", "Another process has been bringing the SQLite store's schema up to date for a minute; try again."),
};

export interface OpenSqlOptions {
  /** Create the database a `mysql://` or `postgres://` URL names when the server has none by that name. */
  createDatabase?: boolean;
}

/**
 * Opens (and migrates) a SQL store: `sqlite:<file>`, `sqlite::memory:`, `mysql://…` or `postgres://…`.
 * A server without the named database is refused with `invalid_store_spec` saying how to create it,
 * or, with `createDatabase`, the database is created and the store opened.
 */
export async function openSqlStore(spec: StoreSpec | string, options: OpenSqlOptions = {}): Promise<SqlStore> {
  const s = parseStoreSpec(spec);
  try {
    return await openSqlStoreOnce(s);
  } catch (err) {
    if ((s.kind !== "mysql" && s.kind !== "postgres") || !isMissingDatabase(err)) throw err;
    if (!options.createDatabase) throw missingDatabaseError(s);
    await createDatabase(s).catch((cause: unknown) => {
      throw toArborError(cause, s.kind, "create its database");
    });
    return openSqlStoreOnce(s);
  }
}

async function openSqlStoreOnce(s: StoreSpec): Promise<SqlStore> {
  if (s.kind === "file")
    throw new ArborError(
      "invalid_store_spec",
      "openSqlStore opens sqlite, mysql or postgres stores; use openStore for a directory.",
    );
  const conn = await connectSql(s);
  try {
    // Kysely's migration lock is keyed by schema; without an explicit one, use the connection's
    // own so that arbor tables in another schema of the same database are not mistaken for ours.
    const schema = conn.kind === "postgres" ? (conn.schema ?? (await currentSchema(conn.db))) : undefined;
    const migrate = () => migrateToLatest(conn.db as Kysely<unknown>, conn.kind, schema);
    // Kysely's migration lock does nothing on SQLite, so two processes creating one new store at
    // once would both create its tables; a lock file beside the database makes them take turns.
    if (conn.kind === "sqlite" && s.kind === "sqlite" && s.file !== ":memory:") {
      await withLockFile(`${resolve(s.file)}.migrate-lock`, MIGRATION_LOCK, migrate);
    } else await migrate();
  } catch (err) {
    await conn.checkpointer?.close();
    await conn.db.destroy().catch(() => {});
    throw toArborError(err, conn.kind, "open");
  }
  return new SqlStore(conn, {
    maxEntryBytes: s.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES,
    grouped: conn.kind === "sqlite" && s.durability === "fsync",
    maxEvents: s.maxEventsPerSession ?? DEFAULT_MAX_EVENTS_PER_SESSION,
    leaseTtlMs: s.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
  });
}
