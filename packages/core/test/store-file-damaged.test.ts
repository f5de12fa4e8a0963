import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";

let dir: string;
let store: Store;
const metaFile = (id: string) => join(dir, "sessions", id, "session.json");

/** Rewrites a session's parent in session.json, as a hostile or damaged store would have it. */
function setParent(id: string, parent: string): void {
  const meta = JSON.parse(readFileSync(metaFile(id), "utf8"));
  writeFileSync(metaFile(id), JSON.stringify({ ...meta, parentSessionId: parent }));
}

async function reopen(): Promise<Store> {
  await store.close();
  store = await openStore({ kind: "file", dir });
  return store;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "arbor-damaged-"));
  store = await openStore({ kind: "file", dir });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("file store: damaged and hostile sessions can be listed and deleted", () => {
  it("deleting a session that is its own parent, or a loop of partners, ends and removes them", async () => {
    const self = await store.createSession({ id: "self" });
    const a = await store.createSession({ id: "a" });
    const b = await store.createSession({ id: "b" });
    const c = await store.createSession({ id: "c", parentSessionId: "b" });
    await store.close();
    setParent(self.id, self.id);
    setParent(a.id, b.id);
    setParent(b.id, a.id);
    store = await openStore({ kind: "file", dir });
    expect((await store.listSessions()).sessions.map((m) => m.id).sort()).toEqual(["a", "b", "c", "self"]);
    await store.deleteSession(self.id);
    await store.deleteSession(a.id);
    expect((await store.listSessions()).sessions).toEqual([]);
    expect(existsSync(join(dir, "sessions", c.id))).toBe(false);
  });

  it("a torn session.json and an entry naming a missing entry are listed as damaged and can be deleted", async () => {
    const torn = await store.createSession({ id: "torn", title: "torn one" });
    const labelled = await store.createSession({ id: "labelled" });
    const m = await store.appendMessage(labelled.id, { role: "user", content: "hi" });
    const fine = await store.createSession({ id: "fine" });
    await store.close();
    writeFileSync(metaFile(torn.id), '{"version": 1, "id": "to');
    const label = { type: "label", id: "bad", parentId: m.id, timestamp: m.timestamp, targetId: "nowhere", label: "x" };
    appendFileSync(join(dir, "sessions", labelled.id, "entries.jsonl"), `${JSON.stringify(label)}\n`);
    store = await openStore({ kind: "file", dir });

    const listed = new Map((await store.listSessions()).sessions.map((meta) => [meta.id, meta]));
    expect([...listed.keys()].sort()).toEqual(["fine", "labelled", "torn"]);
    expect(listed.get("torn")?.damaged).toContain("session.json");
    expect(listed.get("labelled")?.damaged).toBeDefined();
    expect(listed.get("fine")?.damaged).toBeUndefined();

    await store.deleteSession(torn.id);
    await store.deleteSession(labelled.id);
    expect((await (await reopen()).listSessions()).sessions.map((meta) => meta.id)).toEqual([fine.id]);
  });
});
