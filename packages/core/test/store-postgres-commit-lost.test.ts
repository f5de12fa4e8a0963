import { connect, createServer, type Server, type Socket } from "node:net";
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { connectSql, inTransaction, type SqlConnection, type SqlSpec } from "../src/store/sql/connect.js";
import { createNamespace, POSTGRES_URL, type SqlNamespace } from "./helpers/sql-databases.js";

/**
 * A PostgreSQL connection lost while COMMIT is under way leaves the client not knowing whether its
 * transaction committed. The store settles it by the transaction's id: a committed one is not run
 * again (no write twice), an aborted one is (no acknowledged write lost).
 */

/**
 * A TCP proxy to PostgreSQL that, once `armed`, cuts the client off when the server answers a
 * COMMIT: the server has committed, the client hears nothing but a closed connection.
 */
async function commitCuttingProxy(): Promise<{ port: number; arm(): void; cuts(): number; close(): Promise<void> }> {
  const { hostname, port } = new URL(POSTGRES_URL);
  let armed = false;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port || 5432), hostname);
    sockets.add(client).add(upstream);
    let commitSent = false;
    client.on("data", (chunk) => {
      if (armed && /\bcommit\b/i.test(chunk.toString("latin1"))) commitSent = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (commitSent) {
        armed = false;
        commitSent = false;
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    arm: () => {
      armed = true;
    },
    cuts: () => cuts,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A store connection to the namespace, through `port` when given. */
function connectTo(ns: SqlNamespace, port?: number): Promise<SqlConnection> {
  const spec = ns.spec as Extract<SqlSpec, { kind: "postgres" }>;
  if (port === undefined) return connectSql(spec);
  const url = new URL(spec.url);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return connectSql({ ...spec, url: url.toString() });
}

const count = async (db: Kysely<unknown>, table: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0]?.n;

describe("a PostgreSQL transaction whose connection is lost during COMMIT", () => {
  it("that committed is not run again: its result stands, written once", async () => {
    const ns = await createNamespace("postgres");
    const proxy = await commitCuttingProxy();
    const conn = await connectTo(ns, proxy.port);
    try {
      await sql`create table kept_once (n integer)`.execute(conn.db);
      let attempts = 0;
      proxy.arm();
      const result = await inTransaction(conn, async (trx) => {
        attempts++;
        await sql`insert into kept_once (n) values (${attempts})`.execute(trx);
        return attempts;
      });
      expect(proxy.cuts()).toBe(1);
      expect(result).toBe(1);
      expect(attempts).toBe(1);
      expect(await count(conn.db as Kysely<unknown>, "kept_once")).toBe(1);
    } finally {
      await conn.db.destroy();
      await proxy.close();
      await ns.drop();
    }
  });

  it("that never committed (its backend ended inside COMMIT) is done again, once", async () => {
    const ns = await createNamespace("postgres");
    const conn = await connectTo(ns);
    try {
      // A deferred constraint trigger runs inside COMMIT: this one keeps the COMMIT busy for a while.
      await sql`create table aborted_once (n integer)`.execute(conn.db);
      await sql
        .raw(
          `create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(0.4); return null; end $$;
           create constraint trigger slow_commit after insert on aborted_once deferrable initially deferred
             for each row execute function slow_commit();`,
        )
        .execute(conn.db);
      let attempts = 0;
      const outcome = inTransaction(conn, async (trx) => {
        attempts++;
        await sql`insert into aborted_once (n) values (${attempts})`.execute(trx);
        return attempts;
      }).then(
        (n) => n,
        (err: unknown) => err,
      );
      // The first attempt's backend, asleep inside its COMMIT, is ended there.
      for (;;) {
        const ended = await ns.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
            where wait_event = 'PgSleep' and query ilike 'commit%'
              and pid in (select pid from pg_locks where relation = 'aborted_once'::regclass)`,
        );
        if (ended.length > 0) break;
      }
      expect(await outcome).toBe(2);
      const { rows } = await sql<{ n: number }>`select n from aborted_once`.execute(conn.db);
      expect(rows.map((r) => r.n)).toEqual([2]);
    } finally {
      await conn.db.destroy();
      await ns.drop();
    }
  });
});
