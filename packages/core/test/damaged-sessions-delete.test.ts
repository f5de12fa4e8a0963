import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../src/runtime.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { createNamespace, SQL_KINDS } from "./helpers/sql-databases.js";

/**
 * A session damaged behind the store's back (a torn or hand-edited record, one written by a newer
 * Arbor) is listed as damaged and deleted through the runtime's one door, on every store, leaving
 * the healthy sessions as they were.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Creates `ids` plus a healthy "fine" session, each with a message. */
async function seedSessions(store: Store, ids: readonly string[]): Promise<void> {
  for (const id of [...ids, "fine"]) {
    await store.createSession({ id, title: `session ${id}` });
    await store.appendMessage(id, { role: "user", content: `hello ${id}` });
  }
}

/** Lists the store, deletes every damaged session through the runtime, and lists again. */
async function listAndDelete(store: Store, damaged: readonly string[]): Promise<void> {
  const listed = new Map((await store.listSessions()).sessions.map((m) => [m.id, m]));
  expect([...listed.keys()].sort()).toEqual([...damaged, "fine"].sort());
  expect(listed.get("fine")?.damaged).toBeUndefined();
  const runtime = createRuntime({ store, tools: [], env: {}, arborHome: mkdtempSync(join(tmpdir(), "arbor-home-")) });
  try {
    for (const id of damaged) await runtime.sessions.delete(id);
  } finally {
    await runtime.close();
  }
  expect((await store.listSessions()).sessions.map((m) => m.id)).toEqual(["fine"]);
  expect(await store.getSession("fine")).toMatchObject({ title: "session fine" });
}

describe("file store: damaged sessions are listed as damaged and deleted through runtime.sessions.delete", () => {
  it("a torn session.json, a corrupt entries.jsonl line and a newer format version", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-damaged-delete-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    let store = await openStore({ kind: "file", dir });
    await seedSessions(store, ["torn", "corrupt", "newer"]);
    await store.close();
    const file = (id: string, name: string) => join(dir, "sessions", id, name);
    writeFileSync(file("torn", "session.json"), '{"version": 1, "id": "to');
    const entries = readFileSync(file("corrupt", "entries.jsonl"), "utf8");
    writeFileSync(file("corrupt", "entries.jsonl"), `${entries}{"type": "message", "id": "tor\n`);
    const meta = JSON.parse(readFileSync(file("newer", "session.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(file("newer", "session.json"), JSON.stringify({ ...meta, version: 99 }));

    store = await openStore({ kind: "file", dir });
    cleanups.push(() => store.close());
    const listed = new Map((await store.listSessions()).sessions.map((m) => [m.id, m.damaged]));
    expect(listed.get("torn")).toContain("not valid JSON");
    expect(listed.get("corrupt")).toContain("entries.jsonl");
    expect(listed.get("newer")).toContain("newer Arbor");
    await listAndDelete(store, ["torn", "corrupt", "newer"]);
  });
});

describe.each(SQL_KINDS)("%s store: damaged rows are listed as damaged and deleted through runtime.sessions.delete", (kind) => {
  it("a session row that is not JSON, one of a newer format version, and an entry row that is not JSON", async () => {
    const ns = await createNamespace(kind);
    cleanups.push(() => ns.drop());
    const store = await openStore(ns.spec);
    cleanups.push(() => store.close());
    await seedSessions(store, ["torn", "newer", "badentry"]);
    await ns.query(`update arbor_sessions set data = '{"version": 1, "id": "to' where id = 'torn'`);
    await ns.query(`update arbor_sessions set data = '{"version": 99, "id": "newer"}' where id = 'newer'`);
    await ns.query(`update arbor_entries set data = '{"type": "mess' where session_id = 'badentry'`);

    const listed = new Map((await store.listSessions()).sessions.map((m) => [m.id, m.damaged]));
    expect(listed.get("torn")).toContain("not valid JSON");
    expect(listed.get("newer")).toContain("newer Arbor");
    await expect(store.getSession("newer")).rejects.toMatchObject({ code: "unsupported_version" });
    await expect(store.listEntries("badentry")).rejects.toMatchObject({ code: "corrupt_session" });
    await listAndDelete(store, ["torn", "newer", "badentry"]);
    expect(await ns.query("select session_id from arbor_entries where session_id <> 'fine'")).toEqual([]);
  });
});
