import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isArborError } from "../src/errors.js";
import { openStore } from "../src/store/open.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "arbor-file-lazy-"));
  dirs.push(dir);
  return dir;
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return isArborError(err) ? err.code : String(err);
  }
}

// An empty file store lists its sessions without loading the store's reading (and validating)
// modules: these pin that it answers as a store holding sessions does.
describe("a file store that holds no session yet", () => {
  it("refuses a bad limit, cursor or parent id as a store with sessions does", async () => {
    const empty = await openStore(`file:${tempDir()}`);
    const full = await openStore(`file:${tempDir()}`);
    await full.createSession();
    try {
      for (const store of [empty, full]) {
        expect(await codeOf(store.listSessions({ limit: 0 }))).toBe("invalid_input");
        expect(await codeOf(store.listSessions({ cursor: "not a cursor" }))).toBe("invalid_cursor");
        expect(await codeOf(store.listSessions({ parentSessionId: "../x" }))).toBe("invalid_id");
      }
      expect(await empty.listSessions()).toEqual({ sessions: [] });
    } finally {
      await empty.close();
      await full.close();
    }
  });

  it("lists the session another store on the same directory created after it was opened", async () => {
    const dir = tempDir();
    const reader = await openStore(`file:${dir}`);
    const writer = await openStore({ kind: "file", dir });
    try {
      expect((await reader.listSessions()).sessions).toEqual([]);
      const meta = await writer.createSession({ title: "later" });
      expect((await reader.listSessions()).sessions.map((s) => s.id)).toEqual([meta.id]);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("refuses every call after close with store_closed, the listing included", async () => {
    const store = await openStore(`file:${tempDir()}`);
    await store.close();
    expect(await codeOf(store.listSessions())).toBe("store_closed");
    expect(await codeOf(store.getSession("s1"))).toBe("store_closed");
    expect(await codeOf(store.tokens.list())).toBe("store_closed");
    await store.close();
  });
});
