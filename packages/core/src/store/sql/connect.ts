import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, type DatabaseConnection, Kysely, MysqlDialect, type SqliteDatabase, SqliteDialect, sql } from "kysely";
import { ArborError } from "../../errors.js";
import { KeyedLock } from "../keyed-lock.js";
import type { StoreSpec } from "../spec.js";
import { pgTransaction } from "./pg-transaction.js";
import { ArborPostgresDialect } from "./postgres-dialect.js";
import { SqliteCheckpointer } from "./sqlite-checkpointer.js";
import type { ArborDatabase, SqlKind } from "./tables.js";

export type SqlSpec = Extract<StoreSpec, { kind: SqlKind }>;

export interface SqlConnection {
  kind: SqlKind;
  db: Kysely<ArborDatabase>;
  /** The better-sqlite3 handle behind `db` (sqlite only), for the synchronous append path. */
  sqlite?: BetterSqlite3.Database;
  /** PostgreSQL schema the tables live in, when the spec names one. */
  schema?: string;
  /**
   * SQLite has a single connection: a transaction spanning awaits and the synchronous append path
   * would otherwise interleave on it (the append would silently join, and roll back with, the
   * other transaction). Every SQLite write takes this one key.
   */
  sqliteGate: KeyedLock;
  /** Copies a file-backed SQLite database's WAL into it off the store's thread (see sqlite-checkpointer.ts). */
  checkpointer?: SqliteCheckpointer;
}

/**
 * A synchronous statement on SQLite's one connection, not in the middle of another statement's
 * transaction there: at once when nothing holds the connection, else after what does.
 */
export async function sqliteNow<T>(conn: Pick<SqlConnection, "sqliteGate">, work: () => T): Promise<T> {
  const gate = conn.sqliteGate;
  return gate.busy("sqlite") ? gate.run("sqlite", async () => work()) : work();
}

/** Page size of a new SQLite database (see openSqlite). */
const SQLITE_PAGE_SIZE = 8192;

// Drivers are imported on demand so that a file store, or one SQL dialect, never loads the others.
async function openSqlite(spec: Extract<SqlSpec, { kind: "sqlite" }>): Promise<SqlConnection> {
  const { default: Database } = await import("better-sqlite3");
  const memory = spec.file === ":memory:";
  const file = memory ? ":memory:" : resolve(spec.file);
  if (!memory) await mkdir(dirname(file), { recursive: true });
  // `timeout` is SQLite's busy wait: another process holding the write lock delays us, not fails us.
  const handle = new Database(file, { timeout: 5000 });
  try {
    // Set before anything is written, so only a new database takes it (an existing one keeps its own).
    // A step of the agent loop commits two appends: with 8 KiB pages a new page, and with it page 1
    // and a b-tree interior page, is needed half as often, so fewer WAL frames a commit (loop bench:
    // ~27 pwrite and ~2 pread a step instead of ~39 and ~5; the commits' CPU ~13% lower).
    handle.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    if (!memory) await switchToWal(handle);
    // WAL + NORMAL: a commit reaches the OS before returning (survives kill -9); FULL also fsyncs it.
    handle.pragma(`synchronous = ${spec.durability === "fsync" ? "FULL" : "NORMAL"}`);
    // Freed bytes are zeroed, so an erased message (`purgeEntries`) does not linger in the file's free space.
    handle.pragma("secure_delete = ON");
  } catch (err) {
    handle.close();
    throw err;
  }
  const db = new Kysely<ArborDatabase>({ dialect: new SqliteDialect({ database: cachingStatements(handle) }) });
  const checkpointer = memory ? undefined : new SqliteCheckpointer(handle, file);
  return { kind: "sqlite", db, sqlite: handle, sqliteGate: new KeyedLock(), ...(checkpointer ? { checkpointer } : {}) };
}

/**
 * Turns on WAL. Two processes opening one brand-new database at once may both try, and SQLite answers
 * the loser SQLITE_BUSY at once rather than through its busy wait (changing the journal mode needs the
 * database alone); the loser tries again shortly, by which time the mode is set and the pragma only
 * reads it.
 */
async function switchToWal(handle: BetterSqlite3.Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      handle.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "SQLITE_BUSY" || attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

/** Distinct statements kept prepared; `in (…)` lists of every length would otherwise grow it without end. */
const MAX_CACHED_STATEMENTS = 256;

/**
 * The handle Kysely sees: it prepares every query it runs, which for the few statements a store
 * repeats (read a session, take a lease, walk a path) cost as much as running them. Statements are
 * kept by their text; one connection runs one statement at a time and the store never streams a query,
 * so a kept statement is never in use twice.
 */
function cachingStatements(handle: BetterSqlite3.Database): SqliteDatabase {
  const kept = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string) {
      let stmt = kept.get(sql);
      if (!stmt) {
        stmt = handle.prepare(sql);
        if (kept.size < MAX_CACHED_STATEMENTS) kept.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      kept.clear();
      handle.close();
    },
  };
}

function requireDatabaseName(url: string, kind: string): void {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    throw new ArborError("invalid_store_spec", `The ${kind} store URL is not a valid URL.`);
  }
  if (path.replace(/^\//, "") === "") {
    throw new ArborError(
      "invalid_store_spec",
      `The ${kind} store URL names no database: use ${kind}://user@host:port/<database>.`,
    );
  }
}

async function openMysql(spec: Extract<SqlSpec, { kind: "mysql" }>): Promise<SqlConnection> {
  requireDatabaseName(spec.url, "mysql");
  const { createPool } = await import("mysql2");
  const pool = createPool({ uri: spec.url, connectionLimit: 10 });
  const onCreateConnection = async (conn: DatabaseConnection) => {
    // Reads done after taking a session's row lock must see what the previous holder committed,
    // and READ COMMITTED also drops gap locks that would make appends to neighbouring sessions wait.
    await conn.executeQuery(CompiledQuery.raw("set session transaction isolation level read committed"));
    // The active path is a recursive query as deep as the branch; the default caps (1000) are far too low.
    const { rows } = await conn.executeQuery<{ v: string }>(CompiledQuery.raw("select version() as v"));
    const variable = /mariadb/i.test(rows[0]?.v ?? "") ? "max_recursive_iterations" : "cte_max_recursion_depth";
    await conn.executeQuery(CompiledQuery.raw(`set session ${variable} = 4294967295`));
  };
  const db = new Kysely<ArborDatabase>({ dialect: new MysqlDialect({ pool, onCreateConnection }) });
  return { kind: "mysql", db, sqliteGate: new KeyedLock() };
}

async function openPostgres(spec: Extract<SqlSpec, { kind: "postgres" }>): Promise<SqlConnection> {
  requireDatabaseName(spec.url, "postgres");
  const { default: pg } = await import("pg");
  // The schema goes on the search path of every connection, so plain table names (including those in
  // raw recursive queries) resolve to it; the spec schema pattern keeps this option unquoted-safe.
  const pool = new pg.Pool({
    connectionString: spec.url,
    max: 10,
    ...(spec.schema ? { options: `-c search_path=${spec.schema}` } : {}),
  });
  // An idle pooled connection that the server drops must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  // Nor one the store holds between two statements (a transaction, a checked-out connection): the pool
  // listens for errors only on idle clients, and the server's FATAL notice of a terminated backend
  // would otherwise be an unhandled 'error' event. The statement that next uses it fails instead.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<ArborDatabase>({ dialect: new ArborPostgresDialect({ pool }) });
  return { kind: "postgres", db, sqliteGate: new KeyedLock(), ...(spec.schema ? { schema: spec.schema } : {}) };
}

export function connectSql(spec: SqlSpec): Promise<SqlConnection> {
  switch (spec.kind) {
    case "sqlite":
      return openSqlite(spec);
    case "mysql":
      return openMysql(spec);
    case "postgres":
      return openPostgres(spec);
  }
}

/**
 * Runs `work` in one transaction. SQLite starts it IMMEDIATE so the write lock is taken up front: a
 * deferred transaction that reads and then writes can fail outright if another process wrote in between.
 */
export async function inTransaction<T>(conn: SqlConnection, work: (trx: Kysely<ArborDatabase>) => Promise<T>): Promise<T> {
  if (conn.kind === "postgres") return pgTransaction(conn.db, work);
  if (conn.kind !== "sqlite") return conn.db.transaction().execute(work);
  const handle = conn.sqlite as BetterSqlite3.Database;
  return conn.sqliteGate.run("sqlite", () =>
    conn.db.connection().execute(async (c) => {
      await sql`begin immediate`.execute(c);
      try {
        const result = await work(c);
        await sql`commit`.execute(c);
        return result;
      } catch (err) {
        if (handle.inTransaction) await sql`rollback`.execute(c);
        throw err;
      }
    }),
  );
}

/** The schema unqualified names resolve to on a PostgreSQL connection without an explicit one. */
export async function currentSchema(db: Kysely<ArborDatabase>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new ArborError(
      "invalid_store_spec",
      "The postgres connection has no usable schema on its search_path; name one with the store spec's `schema`.",
    );
  }
  return schema;
}
