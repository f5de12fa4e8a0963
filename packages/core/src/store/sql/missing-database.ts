import { ArborError } from "../../errors.js";
import type { SqlSpec } from "./connect.js";

type ServerSpec = Extract<SqlSpec, { kind: "mysql" | "postgres" }>;

/**
 * Whether opening a server store failed because its database does not exist: PostgreSQL's
 * `invalid_catalog_name` (3D000), MySQL's `ER_BAD_DB_ERROR` (1049), as the driver reports them or as
 * the error Arbor wrapped them in says.
 */
export function isMissingDatabase(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown; details?: { driverCode?: unknown; cause?: unknown }; message?: unknown };
  const code = e?.code ?? e?.details?.driverCode;
  if (code === "3D000" || code === "ER_BAD_DB_ERROR" || e?.errno === 1049) return true;
  const text = `${String(e?.message ?? "")} ${String(e?.details?.cause ?? "")}`;
  return /database "[^"]*" does not exist|Unknown database '/.test(text);
}

/** The database a server store's URL names, and the URL of the same server without it (where it is created from). */
function databaseOf(spec: ServerSpec): { name: string; server: URL } {
  const url = new URL(spec.url);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  const server = new URL(spec.url);
  // PostgreSQL always has a `postgres` database to connect to; MySQL connects to none.
  server.pathname = spec.kind === "postgres" ? "/postgres" : "/";
  return { name, server };
}

/** A clear refusal: what is missing, and how to make it. */
export function missingDatabaseError(spec: ServerSpec): ArborError {
  const { name } = databaseOf(spec);
  const how = spec.kind === "postgres" ? `createdb ${name}` : `mysql -e 'CREATE DATABASE \`${name}\`'`;
  return new ArborError(
    "invalid_store_spec",
    `The ${spec.kind} database "${name}" does not exist on that server. Create it (${how}), or have Arbor create it (--create on the command line, createDatabase: true for openStore).`,
  );
}

/** Creates the database a server store's URL names (the URL's user needs the right to). */
export async function createDatabase(spec: ServerSpec): Promise<void> {
  const { name, server } = databaseOf(spec);
  if (spec.kind === "postgres") {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: server.toString() });
    await client.connect();
    try {
      await client.query(`create database "${name.replace(/"/g, '""')}"`);
    } catch (err) {
      // Another process created it meanwhile: that is what was wanted.
      if ((err as { code?: unknown }).code !== "42P04") throw err;
    } finally {
      await client.end().catch(() => {});
    }
    return;
  }
  const mysql = await import("mysql2/promise");
  const conn = await mysql.createConnection({ uri: server.toString() });
  try {
    await conn.query(`create database if not exists \`${name.replace(/`/g, "``")}\``);
  } finally {
    await conn.end().catch(() => {});
  }
}
