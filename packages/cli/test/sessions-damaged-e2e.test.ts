import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionMeta } from "@arbor/core";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { storeCases } from "./helpers/fault.js";
import { withStore } from "./helpers/seed.js";

/**
 * `arbor sessions list` and `arbor sessions rm` on sessions damaged behind the store's back: each is
 * listed as damaged and removed by rm (exit 0), on every store, and the healthy session stays.
 */

const e2e = setupCliE2e("arbor-sessions-damaged-");

/** Damages `ids` (made with a message each) in the given store, one way per id; returns those ids. */
type Damage = (home: string, store: string | undefined) => Promise<string[]>;

/** The file store: a torn session.json, a torn line in entries.jsonl, a session.json of a newer Arbor. */
const fileDamage: Damage = async (home) => {
  const file = (id: string, name: string) => join(home, "sessions", id, name);
  await writeFile(file("torn", "session.json"), '{"version": 1, "id": "to');
  await writeFile(
    file("corrupt", "entries.jsonl"),
    `${await readFile(file("corrupt", "entries.jsonl"), "utf8")}{"type": "mess\n`,
  );
  const meta = JSON.parse(await readFile(file("newer", "session.json"), "utf8")) as Record<string, unknown>;
  await writeFile(file("newer", "session.json"), JSON.stringify({ ...meta, version: 99 }));
  return ["torn", "corrupt", "newer"];
};

/** The SQL stores: a session row that is not JSON, one of a newer Arbor, an entry row that is not JSON. */
const SQL_DAMAGE = [
  `update arbor_sessions set data = '{"version": 1, "id": "to' where id = 'torn'`,
  `update arbor_sessions set data = '{"version": 99, "id": "newer"}' where id = 'newer'`,
  `update arbor_entries set data = '{"type": "mess' where session_id = 'corrupt'`,
];

const sqlDamage: Damage = async (_home, store) => {
  const spec = store as string;
  if (spec.startsWith("sqlite:")) {
    const db = new Database(spec.slice("sqlite:".length));
    try {
      for (const q of SQL_DAMAGE) db.prepare(q).run();
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: spec });
    await client.connect();
    try {
      for (const q of SQL_DAMAGE) await client.query(q);
    } finally {
      await client.end();
    }
  }
  return ["torn", "newer", "corrupt"];
};

describe.each(storeCases(() => e2e.dir))("damaged sessions on the %s store", (name, makeStore) => {
  it("are listed as damaged and deleted by arbor sessions rm", async () => {
    const { store, drop } = await makeStore();
    const home = e2e.freshDir("home");
    const storeArgs = store ? ["--store", store] : [];
    try {
      await withStore(store ?? { kind: "file", dir: home }, async (s) => {
        for (const id of ["torn", "corrupt", "newer", "fine"]) {
          await s.createSession({ id, title: `session ${id}` });
          await s.appendMessage(id, { role: "user", content: `hello ${id}` });
        }
      });
      const damaged = await (name === "file" ? fileDamage : sqlDamage)(home, store);

      const listed = await e2e.cli(["sessions", "list", "--json", ...storeArgs], { home });
      expect(listed.code, listed.stderr).toBe(0);
      const metas = (JSON.parse(listed.stdout) as { sessions: SessionMeta[] }).sessions;
      expect(metas.map((m) => m.id).sort()).toEqual(["corrupt", "fine", "newer", "torn"]);
      const marked = metas.filter((m) => m.damaged !== undefined).map((m) => m.id);
      // A SQL store lists sessions from their rows: an entry row's damage shows when the session is read.
      expect(marked.sort()).toEqual(name === "file" ? ["corrupt", "newer", "torn"] : ["newer", "torn"]);

      for (const id of damaged) {
        const rm = await e2e.cli(["sessions", "rm", id, ...storeArgs], { home });
        expect(rm.code, rm.stderr).toBe(0);
        expect(rm.stdout).toContain(`Deleted session ${id}.`);
      }
      const after = await e2e.cli(["sessions", "list", "--json", ...storeArgs], { home });
      expect((JSON.parse(after.stdout) as { sessions: SessionMeta[] }).sessions.map((m) => m.id)).toEqual(["fine"]);
    } finally {
      await drop();
    }
  }, 300_000);
});
