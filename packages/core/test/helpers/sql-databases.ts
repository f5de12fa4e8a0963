import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { afterAll } from "vitest";
import type { Durability, StoreSpec } from "../../src/store/spec.js";
import { openSqlStore } from "../../src/store/sql/open-sql-store.js";
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from "../../src/store/sql/tables.js";
import type { Store } from "../../src/store/store.js";

/** One isolated, empty store per test; `reopen` closes it and opens a new instance over the same data. */
export interface StoreHarness {
  store: Store;
  reopen(): Promise<Store>;
  /** Another instance over the same data at the same time, as a second process would open it; closed by cleanup. */
  another(): Promise<Store>;
  cleanup(): Promise<void>;
}

export type SqlKind = "sqlite" | "mysql" | "postgres";

// The test setup finds (or starts) the servers and names them here; MySQL is empty when none answers.
export const MYSQL_URL = process.env.ARBOR_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";
export const POSTGRES_URL = process.env.ARBOR_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** The SQL backends this run can reach: MySQL only when a server answered at setup. */
export const SQL_KINDS: SqlKind[] = MYSQL_URL ? ["sqlite", "mysql", "postgres"] : ["sqlite", "postgres"];

/** A database (MySQL), schema (PostgreSQL) or directory (SQLite) no other test run can pick. */
function uniqueName(): string {
  return `arbor_t_${Date.now().toString(36)}_${randomBytes(6).toString("hex")}`;
}

/** A fresh, empty place for a store, and how to remove it again. */
export interface SqlNamespace {
  spec: StoreSpec;
  /** Runs one statement inside the namespace on a connection of its own (for checks behind the store's back). */
  query(statement: string): Promise<Array<Record<string, unknown>>>;
  drop(): Promise<void>;
}

/** Runs `work` over a fresh namespace of `kind` and drops it after, whatever `work` did. */
export async function inNamespace<T>(kind: SqlKind, work: (spec: StoreSpec) => Promise<T>): Promise<T> {
  const db = await createNamespace(kind);
  try {
    return await work(db.spec);
  } finally {
    await db.drop();
  }
}

export async function createNamespace(kind: SqlKind): Promise<SqlNamespace> {
  const name = uniqueName();
  switch (kind) {
    case "sqlite": {
      const dir = await mkdtemp(join(tmpdir(), "arbor-sqlite-"));
      const file = join(dir, "store.db");
      return {
        spec: { kind: "sqlite", file },
        query: async (q) => sqliteQuery(file, q),
        drop: () => rm(dir, { recursive: true, force: true }),
      };
    }
    case "mysql": {
      await mysqlQuery(MYSQL_URL, `create database \`${name}\``);
      const url = `${MYSQL_URL}/${name}`;
      return {
        spec: { kind: "mysql", url },
        query: (q) => mysqlQuery(url, q),
        drop: async () => void (await mysqlQuery(MYSQL_URL, `drop database if exists \`${name}\``)),
      };
    }
    case "postgres": {
      // A schema rather than a database: far cheaper to create, and just as isolated for the store.
      await postgresQuery(undefined, `create schema "${name}"`);
      return {
        spec: { kind: "postgres", url: POSTGRES_URL, schema: name },
        query: (q) => postgresQuery(name, q),
        drop: async () => void (await postgresQuery(undefined, `drop schema if exists "${name}" cascade`)),
      };
    }
  }
}

function sqliteQuery(file: string, statement: string): Array<Record<string, unknown>> {
  const db = new Database(file, { timeout: 5000 });
  try {
    const stmt = db.prepare(statement);
    if (stmt.reader) return stmt.all() as Array<Record<string, unknown>>;
    stmt.run();
    return [];
  } finally {
    db.close();
  }
}

async function mysqlQuery(url: string, statement: string): Promise<Array<Record<string, unknown>>> {
  const conn = await createConnection(url);
  try {
    const [rows] = await conn.query(statement);
    return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
  } finally {
    await conn.end();
  }
}

async function postgresQuery(schema: string | undefined, statement: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

/** The store's own tables in the namespace: every `arbor_` table but the migrations' bookkeeping. */
async function storeTables(ns: SqlNamespace, kind: SqlKind): Promise<string[]> {
  const listing = {
    sqlite: "select name from sqlite_master where type = 'table'",
    mysql: "select table_name as name from information_schema.tables where table_schema = database()",
    postgres: "select tablename as name from pg_tables where schemaname = current_schema()",
  }[kind];
  const names = (await ns.query(listing)).map((r) => String(r.name ?? r.NAME));
  return names.filter((n) => n.startsWith("arbor_") && n !== MIGRATION_TABLE && n !== MIGRATION_LOCK_TABLE);
}

/**
 * A store per test over a namespace of `kind`. By default each test gets a namespace of its own, made
 * and migrated from nothing. `shared` makes one namespace for the test file, migrated by its first
 * test and dropped after the file, and empties the store's tables before each later test: on MySQL a
 * database and its tables cost a dozen DDL statements, each synced to disk (about three quarters of
 * the MySQL conformance suite's time), where emptying a few small tables costs one sync or none.
 * Every test still starts on an empty store at the latest schema; creating the schema from nothing
 * stays covered by the first test and by the SQL store's own tests.
 */
export function sqlHarness(kind: SqlKind, durability?: Durability, opts: { shared?: boolean } = {}): () => Promise<StoreHarness> {
  let shared: Promise<SqlNamespace> | undefined;
  if (opts.shared) afterAll(async () => (shared ? (await shared).drop() : undefined));
  const namespace = async (): Promise<SqlNamespace> => {
    if (!opts.shared) return createNamespace(kind);
    const first = !shared;
    shared ??= createNamespace(kind);
    const ns = await shared;
    if (!first) for (const table of await storeTables(ns, kind)) await ns.query(`delete from ${table}`);
    // The namespace outlives the test: the file's afterAll drops it.
    return { ...ns, drop: async () => {} };
  };
  return async () => {
    const created = await namespace();
    const ns = durability ? { ...created, spec: { ...created.spec, durability } } : created;
    let store: Store;
    const others: Store[] = [];
    try {
      store = await openSqlStore(ns.spec);
    } catch (err) {
      await ns.drop();
      throw err;
    }
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = await openSqlStore(ns.spec);
        return store;
      },
      async another() {
        const other = await openSqlStore(ns.spec);
        others.push(other);
        return other;
      },
      async cleanup() {
        try {
          for (const other of others) await other.close();
          await store.close();
        } finally {
          await ns.drop();
        }
      },
    };
  };
}
