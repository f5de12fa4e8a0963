import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import mysql from "mysql2/promise";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { POSTGRES_URL } from "./helpers/postgres.js";

/** Store specs that are typos are errors that create nothing; `mariadb://` opens the MySQL store. */

const MYSQL_URL = process.env.ARBOR_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";

const e2e = setupCliE2e("arbor-store-spec-", { workspace: false });

describe("--store", () => {
  it("refuses mistyped schemes, an empty file: and a missing path, creating nothing", async () => {
    const cases: [string, RegExp][] = [
      ["sqlite3:./x.db", /Unknown store scheme 'sqlite3:' in "sqlite3:\.\/x\.db" \(did you mean sqlite:\?\)/],
      ["foo:bar", /Unknown store scheme 'foo:'.*write \.\/foo:bar for a directory with a colon/],
      ["file:", /file: needs a directory/],
      [join(e2e.dir, "sesions"), /The file store .*sesions does not exist\. Check the path, or add --create/],
      [`sqlite:${join(e2e.dir, "typo.db")}`, /The sqlite store .*typo\.db does not exist/],
    ];
    for (const [spec, message] of cases) {
      const r = await e2e.cli(["sessions", "list", "--store", spec], { cwd: e2e.dir });
      expect(r.code, `${spec}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      const viaEnv = await e2e.cli(["sessions", "list"], { cwd: e2e.dir, env: { ARBOR_STORE: spec } });
      expect(viaEnv.code, spec).toBe(2);
    }
    expect(await readdir(e2e.dir)).toEqual([]);
  });

  it("--create makes the missing store on purpose", async () => {
    const store = join(e2e.dir, "new-store");
    const r = await e2e.cli(["sessions", "list", "--json", "--store", store, "--create"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessions: [] });
    expect(existsSync(store)).toBe(true);
    const again = await e2e.cli(["sessions", "list", "--json", "--store", store]);
    expect(again.code, again.stderr).toBe(0);
  });

  it("a server without the database is bad input saying how to create it; --create creates it", async () => {
    const name = `arbor_cli_missing_${randomBytes(6).toString("hex")}`;
    const pgUrl = new URL(POSTGRES_URL);
    pgUrl.pathname = `/${name}`;
    const admin = await mysql.createConnection(MYSQL_URL);
    const pgAdmin = new pg.Client({ connectionString: POSTGRES_URL });
    await pgAdmin.connect();
    try {
      for (const [spec, how] of [
        [pgUrl.toString(), `createdb ${name}`],
        [`${MYSQL_URL}/${name}`, `mysql -e 'CREATE DATABASE \`${name}\`'`],
      ] as const) {
        const missing = await e2e.cli(["sessions", "list", "--store", spec]);
        expect(missing.code, missing.stderr).toBe(2);
        expect(missing.stderr).toContain(`database "${name}" does not exist on that server. Create it (${how})`);
        expect(missing.stderr).not.toMatch(/migrat/i);
        const created = await e2e.cli(["sessions", "list", "--json", "--store", spec, "--create"]);
        expect(created.code, created.stderr).toBe(0);
        expect(JSON.parse(created.stdout)).toMatchObject({ sessions: [] });
      }
      // No user in the URL and none in the environment (a container's shell): bad input that says so.
      const noUser = await e2e.cli(["sessions", "list", "--store", `postgres://${pgUrl.host}/${name}`], {
        env: { USER: "", PGUSER: "" },
      });
      expect(noUser.code, noUser.stderr).toBe(2);
      expect(noUser.stderr).toMatch(/names no user, and neither PGUSER nor USER is set: put one in the URL/);
    } finally {
      await admin.query(`drop database if exists \`${name}\``);
      await admin.end();
      await pgAdmin.query(`drop database if exists "${name}" with (force)`);
      await pgAdmin.end();
    }
  }, 60_000);

  it("opens mariadb:// as the MySQL store", async () => {
    const name = `arbor_cli_${randomBytes(6).toString("hex")}`;
    const admin = await mysql.createConnection(MYSQL_URL);
    await admin.query(`create database \`${name}\``);
    try {
      const spec = `${MYSQL_URL.replace(/^mysql:/, "mariadb:")}/${name}`;
      const r = await e2e.cli(["sessions", "list", "--json", "--store", spec]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ sessions: [] });
    } finally {
      await admin.query(`drop database if exists \`${name}\``);
      await admin.end();
    }
  });
});
