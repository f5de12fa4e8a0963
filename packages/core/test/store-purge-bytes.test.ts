import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";

const SECRET = "card 4111-1111-1111-1111";
const mark = { at: "2026-01-02T03:04:05.000Z" };

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every byte the store keeps on disk, read raw: an erased message must be in none of them. */
function allBytes(root: string): string {
  let out = "";
  for (const name of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (name.isFile()) out += readFileSync(join(name.parentPath, name.name), "latin1");
  }
  return out;
}

async function fill(store: Store) {
  const { id } = await store.createSession();
  const secret = await store.appendMessage(id, { role: "user", content: SECRET });
  await store.updateEntry(id, secret.id, { note: SECRET });
  const kept = await store.appendMessage(id, { role: "user", content: "kept text" });
  return { id, secret, kept };
}

describe("erasing a message leaves no copy on disk", () => {
  it("file store: entries.jsonl is replaced whole, its index rebuilt to the new offsets, a stale copy cleared", async () => {
    dir = mkdtempSync(join(tmpdir(), "arbor-purge-"));
    let store = await openStore({ kind: "file", dir });
    const { id, secret, kept } = await fill(store);
    const sessionDir = join(dir, "sessions", id);
    // What a purge that crashed before its rename leaves: the next purge removes it.
    writeFileSync(join(sessionDir, "entries.jsonl.purging"), "half a file");
    await store.purgeEntries(id, [secret.id], mark);
    const next = await store.appendMessage(id, { role: "user", content: "after" });
    await store.close();
    expect(allBytes(dir)).not.toContain("4111-1111");
    expect(allBytes(dir)).toContain("kept text");
    expect(existsSync(join(sessionDir, "entries.jsonl.purging"))).toBe(false);
    // Every index line points at a whole line of the new file naming its entry.
    const entries = readFileSync(join(sessionDir, "entries.jsonl"));
    const lines = readFileSync(join(sessionDir, "entries.idx"), "latin1").trim().split("\n").slice(1);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const [entryId, kind, offset, length] = line.split(" ");
      const record = JSON.parse(entries.subarray(Number(offset), Number(offset) + Number(length)).toString("utf8"));
      expect(kind === "u" ? record.entry.id : record.id).toBe(entryId);
    }
    store = await openStore({ kind: "file", dir });
    expect((await store.getLivePath(id)).entries.map((e) => e.id)).toEqual([secret.id, kept.id, next.id]);
    await store.close();
  });

  it("SQLite: neither the database file nor its WAL keeps the erased text", async () => {
    dir = mkdtempSync(join(tmpdir(), "arbor-purge-"));
    const store = await openStore({ kind: "sqlite", file: join(dir, "arbor.db") });
    const { id, secret } = await fill(store);
    expect(allBytes(dir)).toContain("4111-1111");
    await store.purgeEntries(id, [secret.id], mark);
    expect(allBytes(dir)).not.toContain("4111-1111");
    await store.close();
    expect(allBytes(dir)).not.toContain("4111-1111");
  });
});
