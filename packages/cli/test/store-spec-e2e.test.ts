import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";

/** Store specs that are typos are errors that create nothing; `mariadb://` opens the MySQL store. */

const MYSQL_URL = process.env.ARBOR_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";

let dir: string;
let home: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-store-spec-"));
  home = join(dir, "home");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("--store", () => {
  it("refuses mistyped schemes, an empty file: and a missing path, creating nothing", async () => {
    const cases: [string, RegExp][] = [
      ["sqlite3:./x.db", /Unknown store scheme 'sqlite3:' in "sqlite3:\.\/x\.db" \(did you mean sqlite:\?\)/],
      ["foo:bar", /Unknown store scheme 'foo:'.*write \.\/foo:bar for a directory with a colon/],
      ["file:", /file: needs a directory/],
      [join(dir, "sesions"), /The file store .*sesions does not exist\. Check the path, or add --create/],
      [`sqlite:${join(dir, "typo.db")}`, /The sqlite store .*typo\.db does not exist/],
    ];
    for (const [spec, message] of cases) {
      const r = await arbor(["sessions", "list", "--store", spec], { home, cwd: dir });
      expect(r.code, `${spec}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      const viaEnv = await arbor(["sessions", "list"], { home, cwd: dir, env: { ARBOR_STORE: spec } });
      expect(viaEnv.code, spec).toBe(2);
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("--create makes the missing store on purpose", async () => {
    const store = join(dir, "new-store");
    const r = await arbor(["sessions", "list", "--json", "--store", store, "--create"], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessions: [] });
    expect(existsSync(store)).toBe(true);
    const again = await arbor(["sessions", "list", "--json", "--store", store], { home });
    expect(again.code, again.stderr).toBe(0);
  });

  it("opens mariadb:// as the MySQL store", async () => {
    const name = `arbor_cli_${randomBytes(6).toString("hex")}`;
    const admin = await mysql.createConnection(MYSQL_URL);
    await admin.query(`create database \`${name}\``);
    try {
      const spec = `${MYSQL_URL.replace(/^mysql:/, "mariadb:")}/${name}`;
      const r = await arbor(["sessions", "list", "--json", "--store", spec], { home });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ sessions: [] });
    } finally {
      await admin.query(`drop database if exists \`${name}\``);
      await admin.end();
    }
  });
});
