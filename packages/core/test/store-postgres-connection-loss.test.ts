import { connect, createServer, type Server, type Socket } from "node:net";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { connectSql, inTransaction, type SqlSpec } from "../src/store/sql/connect.js";
import { createNamespace, POSTGRES_URL } from "./helpers/sql-databases.js";

/**
 * A cluster instance's connection to PostgreSQL can be cut at any time (a backend terminated, a
 * network cut). A connection the store holds between two statements must then fail the next
 * statement, not crash the process with an unhandled 'error' event from the pg client.
 */
/** Runs `body` over a fresh PostgreSQL namespace and a connection to it, then closes and drops both. */
async function withConnection(
  body: (ns: Awaited<ReturnType<typeof createNamespace>>, conn: Awaited<ReturnType<typeof connectSql>>) => Promise<void>,
): Promise<void> {
  const ns = await createNamespace("postgres");
  const conn = await connectSql(ns.spec as SqlSpec);
  try {
    await body(ns, conn);
  } finally {
    await conn.db.destroy();
    await ns.drop();
  }
}

describe("a PostgreSQL connection lost while the store holds it", () => {
  it("fails the statement that uses it, and the process and the pool go on", async () => {
    await withConnection(async (ns, conn) => {
      await conn.db.connection().execute(async (c) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(c);
        const pid = rows[0]?.pid as number;
        await ns.query(`select pg_terminate_backend(${pid})`);
        // The server has ended the backend (and sent its FATAL notice) once it is gone from the
        // activity view; the round trips of this check let the held client read that notice idle.
        for (;;) {
          const left = await ns.query(`select 1 from pg_stat_activity where pid = ${pid}`);
          if (left.length === 0) break;
        }
        await ns.query("select 1");
        await expect(sql`select 1`.execute(c)).rejects.toThrow();
      });
      const again = await sql<{ one: number }>`select 1 as one`.execute(conn.db);
      expect(again.rows[0]?.one).toBe(1);
    });
  });

  it("a transaction whose backend is terminated before it commits is done again on a fresh connection, once", async () => {
    await withConnection(async (ns, conn) => {
      await sql`create table lost_and_found (n integer)`.execute(conn.db);
      let attempts = 0;
      const result = await inTransaction(conn, async (trx) => {
        attempts++;
        await sql`insert into lost_and_found (n) values (${attempts})`.execute(trx);
        if (attempts === 1) {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await ns.query(`select pg_terminate_backend(${rows[0]?.pid as number})`);
          // The next statement of this attempt meets the dead connection.
          await sql`select 1`.execute(trx);
        }
        return attempts;
      });
      expect(result).toBe(2);
      // The first attempt's insert was never committed; the second's was, once.
      const { rows } = await sql<{ n: number }>`select n from lost_and_found order by n`.execute(conn.db);
      expect(rows.map((r) => r.n)).toEqual([2]);
    });
  });
});

/**
 * A TCP proxy to PostgreSQL that, once told `cutNext(n)`, cuts the next `n` connections that send
 * a BEGIN: as the pooled connections of an instance whose backends are being terminated one after
 * another fail, each when it is next used.
 */
async function beginCuttingProxy(): Promise<{ port: number; cutNext(n: number): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(POSTGRES_URL);
  let toCut = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port || 5432), hostname);
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk) => {
      if (toCut > 0 && /\bbegin\b/i.test(chunk.toString("latin1"))) {
        toCut--;
        end();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    cutNext: (n) => {
      toCut = n;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("the backends of a pool terminated one after another", () => {
  it("a transaction goes on through five dead connections to a live one and commits, once", async () => {
    const ns = await createNamespace("postgres");
    const proxy = await beginCuttingProxy();
    const url = new URL(POSTGRES_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const conn = await connectSql({ ...(ns.spec as SqlSpec), url: url.toString() } as SqlSpec);
    try {
      await sql`create table after_the_purge (n integer)`.execute(conn.db);
      proxy.cutNext(5);
      const n = await inTransaction(conn, async (trx) => {
        await sql`insert into after_the_purge (n) values (1)`.execute(trx);
        return 1;
      });
      expect(n).toBe(1);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from after_the_purge`.execute(conn.db);
      expect(rows[0]?.n).toBe(1);
    } finally {
      await conn.db.destroy();
      await proxy.close();
      await ns.drop();
    }
  });
});

/** Terminates the backend running the statement that contains `marker`, once it shows in the activity view. */
async function terminateWhenRunning(ns: { query(text: string): Promise<unknown[]> }, marker: string): Promise<void> {
  for (;;) {
    const rows = (await ns.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where query like '%${marker}%' and query not like '%pg_stat_activity%'`,
    )) as unknown[];
    if (rows.length > 0) return;
  }
}

describe("a statement outside a transaction whose backend is terminated while it runs", () => {
  it("a read is read again on a fresh connection and answers", async () => {
    await withConnection(async (ns, conn) => {
      const reading = sql<{ one: number }>`select 1 as one, pg_sleep(0.5) as read_marker`.execute(conn.db).then(
        (r) => r.rows[0]?.one,
        (err: unknown) => err,
      );
      await terminateWhenRunning(ns, "read_marker");
      expect(await reading).toBe(1);
    });
  });

  it("a write is not run again: its error reaches the caller, since it may have been applied", async () => {
    await withConnection(async (ns, conn) => {
      await sql`create table written_once (n integer)`.execute(conn.db);
      // Settled into a value at once: the failure may arrive before the termination query returns.
      const writing = sql`insert into written_once (n) select 1 from pg_sleep(0.5) as write_marker`.execute(conn.db).then(
        () => "applied",
        (err: unknown) => err,
      );
      await terminateWhenRunning(ns, "write_marker");
      expect(await writing).toBeInstanceOf(Error);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from written_once`.execute(conn.db);
      expect(rows[0]?.n).toBe(0);
    });
  });
});
