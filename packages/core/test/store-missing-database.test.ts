import { randomBytes } from "node:crypto";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open.js";
import { MYSQL_URL, POSTGRES_URL } from "./helpers/sql-databases.js";

const drops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

/** A database name no server here has, dropped after the test whether or not it was created. */
function missing(kind: "postgres" | "mysql"): string {
  const name = `arbor_missing_${randomBytes(5).toString("hex")}`;
  if (kind === "postgres") {
    const server = new URL(POSTGRES_URL);
    drops.push(async () => {
      const client = new pg.Client({ connectionString: server.toString() });
      await client.connect();
      await client.query(`drop database if exists "${name}"`);
      await client.end();
    });
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return url.toString();
  }
  drops.push(async () => {
    const conn = await createConnection({ uri: MYSQL_URL });
    await conn.query(`drop database if exists \`${name}\``);
    await conn.end();
  });
  return `${MYSQL_URL}/${name}`;
}

const kinds = (["postgres", ...(MYSQL_URL ? ["mysql"] : [])] as const).map((k) => [k] as const);

describe.each(kinds)("a %s store whose database does not exist", (kind) => {
  it("is refused as bad input saying how to create it, and is created on request", async () => {
    const url = missing(kind as "postgres" | "mysql");
    const name = new URL(url).pathname.slice(1);
    await expect(openStore(url)).rejects.toMatchObject({
      code: "invalid_store_spec",
      message: expect.stringContaining(`database "${name}" does not exist on that server. Create it (`),
    });
    const store = await openStore(url, { createDatabase: true });
    const session = await store.createSession({});
    expect((await store.getSession(session.id))?.id).toBe(session.id);
    await store.close();
    // Once there, it simply opens.
    const again = await openStore(url);
    expect((await again.listSessions({})).sessions).toHaveLength(1);
    await again.close();
  });
});
