import { appendFileSync, existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { livePathOf } from "../src/store/live-path.js";
import { openStore } from "../src/store/open.js";
import { expectCode } from "./conformance/sessions-suite.js";
import { fileStoreEach } from "./helpers/file-store-each.js";

// The file store resumes a session through entries.idx (where each entry's record is) and reads only
// the live path. These tests check that it does, and that an index that is missing, torn, stale or
// wrong is never believed: the session is then read whole and the index written again. These sessions
// are small, so the store here keeps an index from the first byte; a small session keeps none by default.

const t = fileStoreEach("arbor-index-", { indexFromBytes: 0 });
const file = (id: string, name: string) => join(t.dir, "sessions", id, name);

/** 30 messages, a compaction keeping the last 5 of them, then 10 more: the live path is 16 entries and what it carries. */
async function compactedSession(): Promise<string> {
  const { id } = await t.store.createSession();
  const first = await t.store.appendMessage(id, { role: "user", content: "the task" });
  await t.store.appendEntry(id, { type: "model_change", model: "p/m" });
  let kept = first.id;
  for (let i = 0; i < 29; i++) {
    const e = await t.store.appendMessage(id, { role: i % 2 ? "user" : "assistant", content: `old ${i}` });
    if (i === 24) kept = e.id;
  }
  await t.store.appendCompaction(id, { summary: "so far", firstKeptEntryId: kept, tokensBefore: 1000 });
  for (let i = 0; i < 10; i++) await t.store.appendMessage(id, { role: "user", content: `new ${i}` });
  return id;
}

/** The live path as a store that reads the whole path cuts it. */
async function expectedLivePath(id: string) {
  const other = await openStore(t.dir);
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
  it("a new session's directory holds its event log from the start, empty, read as a missing one", async () => {
    const { id } = await t.store.createSession();
    // Made with the directory (off the event loop): the first append opens a file that exists.
    expect(readFileSync(file(id, "events.jsonl"), "utf8")).toBe("");
    expect(existsSync(file(id, "entries.idx"))).toBe(false);
    expect(await t.store.listEvents(id)).toEqual([]);
    await t.reopen();
    await t.store.appendMessage(id, { role: "user", content: "hello" });
    expect((await t.store.getActivePath(id)).map((e) => e.type)).toEqual(["message"]);
    await t.store.close();
    expect(readFileSync(file(id, "entries.idx"), "latin1")).toMatch(/^arbor-entry-index 1\n\S+ e 0 /);
    await t.openAgain();
    expect((await t.store.getLivePath(id)).entries.map((e) => e.type)).toEqual(["message"]);
  });

  it("continues a session through its index, reading only the live path", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    expect(expected.complete).toBe(false);
    await t.reopen();
    expect(await t.store.getLivePath(id)).toEqual(expected);
    // A damaged entry off the live path: a resume never reads it, a read of the whole tree reports it.
    await t.store.close();
    damageOldMessage(id);
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(expected);
    await expectCode(t.store.getActivePath(id), "corrupt_session");
  });

  it("appends after a resume through the index, and a later read whole agrees", async () => {
    const id = await compactedSession();
    await t.reopen();
    const lease = await t.store.acquireLease(id, "run");
    await t.store.getLivePath(id);
    const added = await t.store.appendMessage(id, { role: "user", content: "after resume" });
    const updated = await t.store.updateEntry(id, added.id, {
      message: { ...(added as { message: object }).message, content: [{ type: "text", text: "edited" }] },
    });
    expect(await t.store.getEntry(id, added.id)).toEqual(updated);
    await t.store.appendEntries(id, [
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "a" }] } },
      { type: "message", message: { role: "user", content: [{ type: "text", text: "b" }] } },
    ]);
    await lease.release();
    const viaIndex = await (await t.reopen()).getLivePath(id);
    const whole = await expectedLivePath(id);
    expect(viaIndex).toEqual(whole);
    expect(viaIndex.entries.at(-3)).toEqual(updated);
    const meta = await t.store.getSession(id);
    expect(meta?.totalMessages).toBe(43);
    expect(meta?.leafEntryId).toBe(whole.entries.at(-1)?.id);
  });

  it("indexes records of multi-byte text where they are, alone and in batches", async () => {
    // Each line's bytes are counted as it is encoded: text of one, two, three and four UTF-8 bytes a
    // character (and an entry over the store's kept buffer) must still land where the index says.
    const { id } = await t.store.createSession();
    await t.store.appendMessage(id, { role: "user", content: "plain, é, 中文, 😀 …" });
    await t.store.appendEntries(id, [
      { type: "message", message: { role: "user", content: [{ type: "text", text: "ü".repeat(50) }] } },
      { type: "message", message: { role: "user", content: [{ type: "text", text: "😀".repeat(40) }] } },
      { type: "message", message: { role: "user", content: [{ type: "text", text: "中".repeat(120_000) }] } },
    ]);
    const last = await t.store.appendMessage(id, { role: "user", content: "after 中文 😀" });
    const expected = await expectedLivePath(id);
    await t.reopen();
    expect(await t.store.getLivePath(id)).toEqual(expected);
    expect(await t.store.getEntry(id, last.id)).toEqual(last);
    const texts = (await t.store.getActivePath(id)).map((e) =>
      e.type === "message" ? e.message.content.map((p) => ("text" in p ? p.text : p.type)).join("") : e.type,
    );
    expect(texts).toEqual(["plain, é, 中文, 😀 …", "ü".repeat(50), "😀".repeat(40), "中".repeat(120_000), "after 中文 😀"]);
  });

  it("rebuilds a missing index, and completes a torn one", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    await t.store.close();
    unlinkSync(file(id, "entries.idx"));
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(expected);
    expect(existsSync(file(id, "entries.idx"))).toBe(true);
    await t.store.close();
    appendFileSync(file(id, "entries.idx"), "e 99999 12 torn");
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(expected);
    await t.store.appendMessage(id, { role: "user", content: "more" });
    await t.store.close();
    expect(readFileSync(file(id, "entries.idx"), "latin1")).not.toContain("torn");
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(await expectedLivePath(id));
  });

  it("does not believe an index that points at the wrong records", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    await t.store.close();
    const lines = readFileSync(file(id, "entries.idx"), "latin1").split("\n");
    // Every offset moved by one byte: the last record's check fails, so the session is read whole.
    writeFileSync(
      file(id, "entries.idx"),
      lines.map((l) => l.replace(/^(\S+ [eu]) (\d+)/, (_, k: string, n: string) => `${k} ${Number(n) + 1}`)).join("\n"),
    );
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(expected);
    // And it was written again from the entries.
    expect(readFileSync(file(id, "entries.idx"), "latin1")).toBe(lines.join("\n"));
    await t.store.close();
    writeFileSync(file(id, "entries.idx"), "not an index\n");
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(expected);
  });

  it("reports a damaged index line it reads, and reads the session once the index is removed", async () => {
    const id = await compactedSession();
    const expected = await expectedLivePath(id);
    await t.store.close();
    const lines = readFileSync(file(id, "entries.idx"), "latin1").split("\n");
    // The leaf's parent: its line's offset is no number.
    lines[lines.length - 3] = (lines[lines.length - 3] as string).replace(/ e \d+ /, " e x ");
    writeFileSync(file(id, "entries.idx"), lines.join("\n"));
    await t.openAgain();
    const err = await expectCode(t.store.getLivePath(id), "corrupt_session");
    expect(err.message).toMatch(/entries\.idx/);
    await t.store.close();
    // A line of the live path left out: the walk does not stop there as if at the root.
    lines.splice(lines.length - 3, 1);
    writeFileSync(file(id, "entries.idx"), lines.join("\n"));
    await t.openAgain();
    await expectCode(t.store.getLivePath(id), "corrupt_session");
    await t.store.close();
    unlinkSync(file(id, "entries.idx"));
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(expected);
  });

  it("reads a session whole when session.json counts less than the index covers (a run that crashed)", async () => {
    const id = await compactedSession();
    await t.store.close();
    const before = readFileSync(file(id, "session.json"), "utf8");
    await t.openAgain();
    const lease = await t.store.acquireLease(id, "run");
    for (let i = 0; i < 3; i++) await t.store.appendMessage(id, { role: "user", content: `late ${i}` });
    await lease.release();
    await t.store.close();
    // As if the process died after the appends and the index but before session.json was written.
    writeFileSync(file(id, "session.json"), before);
    await t.openAgain();
    expect(await t.store.getLivePath(id)).toEqual(await expectedLivePath(id));
    expect((await t.store.getSession(id))?.totalMessages).toBe(43);
    await t.store.close();
    // The whole read is real: a damaged entry off the live path is reported.
    writeFileSync(file(id, "session.json"), before);
    damageOldMessage(id);
    await t.openAgain();
    await expectCode(t.store.getLivePath(id), "corrupt_session");
  });
});

describe("file store index of a small session (the default)", () => {
  const small = fileStoreEach("arbor-index-small-");
  const idx = (id: string) => join(small.dir, "sessions", id, "entries.idx");

  it("keeps no index file until the entries pass 64 KiB, then writes one covering every entry", async () => {
    const { id } = await small.store.createSession();
    const lease = await small.store.acquireLease(id, "run");
    for (let i = 0; i < 20; i++) await small.store.appendMessage(id, { role: i % 2 ? "assistant" : "user", content: `m ${i}` });
    await lease.release();
    await small.reopen();
    expect(existsSync(idx(id))).toBe(false);
    const before = await small.store.getLivePath(id);
    expect(before.entries).toHaveLength(20);
    // Past the threshold: the lines kept since the whole read go into a new index with the new ones.
    await small.store.appendMessage(id, { role: "user", content: "x".repeat(70_000) });
    await small.store.appendMessage(id, { role: "assistant", content: "after" });
    await small.store.close();
    const lines = readFileSync(idx(id), "latin1").trim().split("\n");
    expect(lines[0]).toBe("arbor-entry-index 1");
    expect(lines).toHaveLength(23);
    await small.openAgain();
    const after = await small.store.getLivePath(id);
    expect(after.entries.map((e) => e.id)).toEqual([
      ...before.entries.map((e) => e.id),
      ...after.entries.slice(20).map((e) => e.id),
    ]);
    expect(after.entries).toHaveLength(22);
  });
});
