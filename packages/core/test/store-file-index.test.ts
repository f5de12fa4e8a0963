import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { livePathOf } from "../src/store/live-path.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { expectCode } from "./conformance/sessions-suite.js";

// The file store resumes a session through entries.idx (where each entry's record is) and reads only
// the live path. These tests check that it does, and that an index that is missing, torn, stale or
// wrong is never believed: the session is then read whole and the index written again.

let dir: string;
let store: Store;
const file = (id: string, name: string) => join(dir, "sessions", id, name);
const reopen = async () => {
  await store.close();
  store = await openStore(dir);
  return store;
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "arbor-index-"));
  store = await openStore(dir);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** 30 messages, a compaction keeping the last 5 of them, then 10 more: the live path is 16 entries and what it carries. */
async function compactedSession(): Promise<string> {
  const { id } = await store.createSession();
  const first = await store.appendMessage(id, { role: "user", content: "the task" });
  await store.appendEntry(id, { type: "model_change", model: "p/m" });
  let kept = first.id;
  for (let i = 0; i < 29; i++) {
    const e = await store.appendMessage(id, { role: i % 2 ? "user" : "assistant", content: `old ${i}` });
    if (i === 24) kept = e.id;
  }
  await store.appendCompaction(id, { summary: "so far", firstKeptEntryId: kept, tokensBefore: 1000 });
  for (let i = 0; i < 10; i++) await store.appendMessage(id, { role: "user", content: `new ${i}` });
  return id;
}

/** The live path as a store that reads the whole path cuts it. */
async function expectedLivePath(id: string) {
  const other = await openStore(dir);
  try {
    return livePathOf(await other.getActivePath(id));
  } finally {
    await other.close();
  }
}

/** Replaces the bytes of one early message's text in place (same length), so only a whole read notices. */
function damageOldMessage(id: string): void {
  const text = readFileSync(file(id, "entries.jsonl"), "utf8");
  writeFileSync(file(id, "entries.jsonl"), text.replace('"old 3"', '"old 3}'));
}

describe("file store index", () => {
  it("continues a session through its index, reading only the live path", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    expect(expected.complete).toBe(false);
    await reopen();
    expect(await store.getLivePath(id)).toEqual(expected);
    // A damaged entry off the live path: a resume never reads it, a read of the whole tree reports it.
    await store.close();
    damageOldMessage(id);
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(expected);
    await expectCode(store.getActivePath(id), "corrupt_session");
  });

  it("appends after a resume through the index, and a later read whole agrees", async () => {
    const id = await compactedSession();
    await reopen();
    const lease = await store.acquireLease(id, "run");
    await store.getLivePath(id);
    const added = await store.appendMessage(id, { role: "user", content: "after resume" });
    const updated = await store.updateEntry(id, added.id, {
      message: { ...(added as { message: object }).message, content: [{ type: "text", text: "edited" }] },
    });
    expect(await store.getEntry(id, added.id)).toEqual(updated);
    await store.appendEntries(id, [
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "a" }] } },
      { type: "message", message: { role: "user", content: [{ type: "text", text: "b" }] } },
    ]);
    await lease.release();
    const viaIndex = await (await reopen()).getLivePath(id);
    const whole = await expectedLivePath(id);
    expect(viaIndex).toEqual(whole);
    expect(viaIndex.entries.at(-3)).toEqual(updated);
    const meta = await store.getSession(id);
    expect(meta?.totalMessages).toBe(43);
    expect(meta?.leafEntryId).toBe(whole.entries.at(-1)?.id);
  });

  it("rebuilds a missing index, and completes a torn one", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    await store.close();
    unlinkSync(file(id, "entries.idx"));
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(expected);
    expect(existsSync(file(id, "entries.idx"))).toBe(true);
    await store.close();
    appendFileSync(file(id, "entries.idx"), "e 99999 12 torn");
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(expected);
    await store.appendMessage(id, { role: "user", content: "more" });
    await store.close();
    expect(readFileSync(file(id, "entries.idx"), "latin1")).not.toContain("torn");
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(await expectedLivePath(id));
  });

  it("does not believe an index that points at the wrong records", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    await store.close();
    const lines = readFileSync(file(id, "entries.idx"), "latin1").split("\n");
    // Every offset moved by one byte: the last record's check fails, so the session is read whole.
    writeFileSync(
      file(id, "entries.idx"),
      lines.map((l) => l.replace(/^(\S+ [eu]) (\d+)/, (_, k: string, n: string) => `${k} ${Number(n) + 1}`)).join("\n"),
    );
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(expected);
    // And it was written again from the entries.
    expect(readFileSync(file(id, "entries.idx"), "latin1")).toBe(lines.join("\n"));
    await store.close();
    writeFileSync(file(id, "entries.idx"), "not an index\n");
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(expected);
  });

  it("reports a damaged index line it reads, and reads the session once the index is removed", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    await store.close();
    const lines = readFileSync(file(id, "entries.idx"), "latin1").split("\n");
    // The leaf's parent: its line's offset is no number.
    lines[lines.length - 3] = (lines[lines.length - 3] as string).replace(/ e \d+ /, " e x ");
    writeFileSync(file(id, "entries.idx"), lines.join("\n"));
    store = await openStore(dir);
    const err = await expectCode(store.getLivePath(id), "corrupt_session");
    expect(err.message).toMatch(/entries\.idx/);
    await store.close();
    // A line of the live path left out: the walk does not stop there as if at the root.
    lines.splice(lines.length - 3, 1);
    writeFileSync(file(id, "entries.idx"), lines.join("\n"));
    store = await openStore(dir);
    await expectCode(store.getLivePath(id), "corrupt_session");
    await store.close();
    unlinkSync(file(id, "entries.idx"));
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(expected);
  });

  it("reads a session whole when session.json counts less than the index covers (a run that crashed)", async () => {
    const id = await compactedSession();
    await store.close();
    const before = readFileSync(file(id, "session.json"), "utf8");
    store = await openStore(dir);
    const lease = await store.acquireLease(id, "run");
    for (let i = 0; i < 3; i++) await store.appendMessage(id, { role: "user", content: `late ${i}` });
    await lease.release();
    await store.close();
    // As if the process died after the appends and the index but before session.json was written.
    writeFileSync(file(id, "session.json"), before);
    store = await openStore(dir);
    expect(await store.getLivePath(id)).toEqual(await expectedLivePath(id));
    expect((await store.getSession(id))?.totalMessages).toBe(43);
    await store.close();
    // The whole read is real: a damaged entry off the live path is reported.
    writeFileSync(file(id, "session.json"), before);
    damageOldMessage(id);
    store = await openStore(dir);
    await expectCode(store.getLivePath(id), "corrupt_session");
  });
});
