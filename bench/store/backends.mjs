// How each backend is opened, and whether it is available on this machine.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { reason } from "../lib/format.mjs";

export const SERVERS = {
  mysql: { admin: "mysql://root@127.0.0.1:3306/", label: "mysql (127.0.0.1:3306)" },
  postgres: { admin: "postgres://postgres@127.0.0.1:5432/postgres", label: "postgres (127.0.0.1:5432)" },
};

async function mysqlAdmin(sqlText) {
  const { default: mysql } = await import("mysql2/promise");
  const conn = await mysql.createConnection({ uri: SERVERS.mysql.admin, connectTimeout: 3000 });
  try {
    const [rows] = await conn.query(sqlText);
    return rows;
  } finally {
    await conn.end();
  }
}

async function postgresAdmin(sqlText) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: SERVERS.postgres.admin, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query(sqlText)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A backend ready to open stores: `spec(durability, name)` gives a store spec (`name` separates
 * the stores of one run on file and sqlite; server backends share one database), `cleanup()`
 * removes what was created. Throws with a readable reason when the backend cannot be used.
 */
export async function prepareBackend(kind, tmp) {
  switch (kind) {
    case "file":
      return {
        kind,
        spec: (durability, name) => ({ kind, dir: join(tmp, `file-${name}`), durability }),
        cleanup: async () => {},
      };
    case "sqlite":
      return {
        kind,
        spec: (durability, name) => ({ kind, file: join(tmp, `sqlite-${name}.db`), durability }),
        cleanup: async () => {},
      };
    case "mysql":
    case "postgres": {
      const db = `arbor_bench_${process.pid}_${randomBytes(3).toString("hex")}`;
      const admin = kind === "mysql" ? mysqlAdmin : postgresAdmin;
      try {
        await admin(`create database ${db}`);
      } catch (err) {
        throw new Error(`${SERVERS[kind].label} not reachable or cannot create a database: ${reason(err)}`);
      }
      // What a committed append survives is the server's setting, whatever the store's durability option.
      const settingsSql =
        kind === "mysql"
          ? "select @@innodb_flush_log_at_trx_commit as innodb_flush_log_at_trx_commit, @@sync_binlog as sync_binlog"
          : "select current_setting('synchronous_commit') as synchronous_commit, current_setting('fsync') as fsync";
      const settings = Object.entries((await admin(settingsSql).catch(() => [{}]))[0] ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");
      const url = kind === "mysql" ? `mysql://root@127.0.0.1:3306/${db}` : `postgres://postgres@127.0.0.1:5432/${db}`;
      const drop = kind === "mysql" ? `drop database if exists ${db}` : `drop database if exists ${db} with (force)`;
      return { kind, db, settings, spec: (durability) => ({ kind, url, durability }), cleanup: () => admin(drop) };
    }
    default:
      throw new Error(`unknown backend ${kind}`);
  }
}

/**
 * Opens a store, turning "not available" into a thrown Error with a one-line reason. A SQL store
 * that is not wired into openStore yet fails here.
 */
export async function openBackendStore(core, spec) {
  try {
    return await core.openStore(spec);
  } catch (err) {
    throw new Error(`${spec.kind} store unavailable: ${reason(err)}`);
  }
}

/** Checks once per run that a backend opens; returns null when it does, else the reason. */
export async function probe(core, backend, tmpName = "probe") {
  try {
    const store = await openBackendStore(core, backend.spec("process", tmpName));
    await store.close();
    return null;
  } catch (err) {
    return reason(err);
  }
}
