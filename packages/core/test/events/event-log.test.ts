import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { StoreSpec } from "../../src/store/spec.js";
import type { Store } from "../../src/store/store.js";
import { createNamespace, SQL_KINDS } from "../helpers/sql-databases.js";

/** A fresh store of each backend, opened from a spec so options (retention) can be set and the store reopened. */
type Backend = { name: string; spec(): Promise<{ spec: StoreSpec; drop(): Promise<void> }> };

const backends: Backend[] = [
  {
    name: "file",
    spec: async () => {
      const dir = mkdtempSync(join(tmpdir(), "arbor-events-"));
      return { spec: { kind: "file", dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  ...SQL_KINDS.map((kind) => ({
    name: kind,
    spec: async () => createNamespace(kind),
  })),
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(backend: Backend, options: Partial<StoreSpec> = {}) {
  const ns = await backend.spec();
  const spec = { ...ns.spec, ...options } as StoreSpec;
  let store: Store = await openStore(spec);
  cleanups.push(async () => {
    await store.close();
    await ns.drop();
  });
  return {
    get store() {
      return store;
    },
    async reopen() {
      await store.close();
      store = await openStore(spec);
      return store;
    },
    spec,
  };
}

const ev = (n: number) => ({ type: "message_added", data: { n } });

describe.each(backends)("event log ($name)", (backend) => {
  it("numbers events from 1, strictly increasing, and lists them after an id", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession();
    const first = await store.appendEvents(id, [ev(1), ev(2)]);
    expect(first.map((e) => e.id)).toEqual([1, 2]);
    expect(first[0]).toMatchObject({ type: "message_added", data: { n: 1 } });
    expect(first[0]?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const second = await store.appendEvents(id, [
      { type: "goal_added", data: { goal: { id: "1" } }, timestamp: "2026-01-02T03:04:05.678Z" },
    ]);
    expect(second).toEqual([{ id: 3, type: "goal_added", timestamp: "2026-01-02T03:04:05.678Z", data: { goal: { id: "1" } } }]);
    expect((await store.listEvents(id)).map((e) => e.id)).toEqual([1, 2, 3]);
    expect((await store.listEvents(id, { after: 1 })).map((e) => e.id)).toEqual([2, 3]);
    expect((await store.listEvents(id, { after: 1, limit: 1 })).map((e) => e.id)).toEqual([2]);
    expect(await store.listEvents(id, { after: 3 })).toEqual([]);
    expect(await store.appendEvents(id, [])).toEqual([]);
  });

  it("keeps events per session apart; ids continue after a reopen", async () => {
    const h = await open(backend);
    const a = await h.store.createSession();
    const b = await h.store.createSession();
    await h.store.appendEvents(a.id, [ev(1), ev(2)]);
    await h.store.appendEvents(b.id, [ev(1)]);
    const store = await h.reopen();
    expect((await store.appendEvents(a.id, [ev(3)]))[0]?.id).toBe(3);
    expect((await store.appendEvents(b.id, [ev(2)]))[0]?.id).toBe(2);
    expect((await store.listEvents(a.id)).map((e) => e.data.n)).toEqual([1, 2, 3]);
  });

  it("concurrent appends to one session get distinct, increasing ids", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession();
    const batches = await Promise.all(Array.from({ length: 20 }, (_, i) => store.appendEvents(id, [ev(i), ev(i)])));
    const ids = batches.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(40);
    expect((await store.listEvents(id)).map((e) => e.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it("drops the oldest past maxEventsPerSession and never reuses an id", async () => {
    const h = await open(backend, { maxEventsPerSession: 5 });
    const { id } = await h.store.createSession();
    for (let i = 1; i <= 12; i++) await h.store.appendEvents(id, [ev(i)]);
    const kept = await h.store.listEvents(id);
    expect(kept.length).toBeGreaterThanOrEqual(5);
    expect(kept.length).toBeLessThanOrEqual(6);
    expect(kept.at(-1)?.id).toBe(12);
    const store = await h.reopen();
    expect((await store.appendEvents(id, [ev(13)]))[0]?.id).toBe(13);
  });

  it("under a held lease, retention rewrites the log and later appends land in the rewritten file", async () => {
    const h = await open(backend, { maxEventsPerSession: 5 });
    const { id } = await h.store.createSession();
    const lease = await h.store.acquireLease(id, "a run");
    for (let i = 1; i <= 14; i++) await h.store.appendEvents(id, [ev(i)]);
    const reader = await openStore(h.spec);
    cleanups.push(() => reader.close());
    const seen = await reader.listEvents(id);
    expect(seen.at(-1)?.id).toBe(14);
    expect(seen.map((e) => e.data.n)).toEqual(seen.map((e) => e.id));
    await lease.release();
  });

  it("ids go on across instances: between two leases of one instance, another appends", async () => {
    const h = await open(backend);
    const other = await openStore(h.spec);
    cleanups.push(() => other.close());
    const { id } = await h.store.createSession();
    let lease = await h.store.acquireLease(id, "a run");
    await h.store.appendEvents(id, [ev(1)]);
    await lease.release();
    await other.appendEvents(id, [ev(2)]);
    lease = await h.store.acquireLease(id, "a run");
    expect((await h.store.appendEvents(id, [ev(3)]))[0]?.id).toBe(3);
    await lease.release();
    expect((await other.listEvents(id)).map((e) => [e.id, e.data.n])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("deleting a session deletes its events", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession({ id: "with-events" });
    await store.appendEvents(id, [ev(1), ev(2)]);
    await store.deleteSession(id);
    await expect(store.listEvents(id)).rejects.toMatchObject({ code: "session_not_found" });
    await store.createSession({ id: "with-events" });
    expect(await store.listEvents(id)).toEqual([]);
    expect((await store.appendEvents(id, [ev(1)]))[0]?.id).toBe(1);
  });

  it("refuses bad input, a missing session and a bad id, writing nothing", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession();
    await expect(store.appendEvents("nosuch", [ev(1)])).rejects.toMatchObject({ code: "session_not_found" });
    await expect(store.appendEvents("../x", [ev(1)])).rejects.toMatchObject({ code: "invalid_id" });
    await expect(store.appendEvents(id, [ev(1), { type: "Bad Type", data: {} }])).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(store.appendEvents(id, [{ type: "x", data: [] as unknown as Record<string, unknown> }])).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(store.listEvents(id, { after: -1 })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(store.listEvents("nosuch")).rejects.toMatchObject({ code: "session_not_found" });
    expect(await store.listEvents(id)).toEqual([]);
  });

  it("checks every event of a batch, those of a type already seen in it and data large only in UTF-8 bytes included", async () => {
    const { store } = await open(backend, { maxEntryBytes: 1_000 });
    const { id } = await store.createSession();
    // 400 characters, 1,200 bytes: over the limit only once encoded.
    const wide = { text: "€".repeat(400) };
    await expect(store.appendEvents(id, [ev(1), { type: "message_added", data: wide }])).rejects.toMatchObject({
      code: "entry_too_large",
    });
    await expect(
      store.appendEvents(id, [ev(1), ev(2), { type: "message_added", data: null as unknown as Record<string, unknown> }]),
    ).rejects.toMatchObject({ code: "invalid_input" });
    await expect(store.appendEvents(id, [ev(1), { type: "message_added", data: {}, timestamp: "later" }])).rejects.toMatchObject({
      code: "invalid_input",
    });
    expect(await store.listEvents(id)).toEqual([]);
    const ascii = { text: "e".repeat(900) };
    expect(await store.appendEvents(id, [{ type: "message_added", data: ascii }])).toHaveLength(1);
  });
});

describe.each(backends)("event log paging ($name)", (backend) => {
  it("pages through a long log after any id, large and non-ASCII records included; lastEventId is the newest", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession();
    expect(await store.lastEventId(id)).toBe(0);
    // Sizes vary so records straddle the reader's probe and chunk sizes; some are larger than both.
    const payload = (n: number) => ({ n, text: "é€😀".repeat(n % 7 === 0 ? 30_000 : n % 50) });
    const total = 1200;
    for (let n = 1; n <= total; n += 100) {
      await store.appendEvents(
        id,
        Array.from({ length: 100 }, (_, i) => ({ type: "message_added", data: payload(n + i) })),
      );
    }
    expect(await store.lastEventId(id)).toBe(total);
    for (const after of [0, 1, 6, 7, 99, 100, 101, 599, 1000, 1199]) {
      const page = await store.listEvents(id, { after, limit: 37 });
      const expected = Array.from({ length: Math.min(37, total - after) }, (_, k) => after + k + 1);
      expect(page.map((e) => e.id)).toEqual(expected);
      expect(page.map((e) => e.data)).toEqual(expected.map(payload));
    }
    expect(await store.listEvents(id, { after: total })).toEqual([]);
    expect(await store.listEvents(id, { after: total + 50 })).toEqual([]);
    const seen: number[] = [];
    for (let after = 0; ; ) {
      const page = await store.listEvents(id, { after, limit: 250 });
      seen.push(...page.map((e) => e.id));
      if (page.length < 250) break;
      after = page.at(-1)?.id as number;
    }
    expect(seen).toEqual(Array.from({ length: total }, (_, k) => k + 1));
    await expect(store.lastEventId("nosuch")).rejects.toMatchObject({ code: "session_not_found" });
  });
});

/** A file store holding a session whose log has events 1…`n`, and the log's file, to damage. */
async function fileLogWith(n: number) {
  const h = await open(backends[0] as Backend);
  const { id } = await h.store.createSession();
  await h.store.appendEvents(
    id,
    Array.from({ length: n }, (_, i) => ev(i + 1)),
  );
  const file = join((h.spec as { dir: string }).dir, "sessions", id, "events.jsonl");
  return { h, id, file };
}

describe("event log (file): crash tolerance", () => {
  it("reads what another store on the same directory appended, and ignores a torn tail", async () => {
    const { h, id, file } = await fileLogWith(2);
    const other = await openStore(h.spec);
    cleanups.push(() => other.close());
    expect(await other.listEvents(id, { after: 1 })).toMatchObject([{ id: 2, data: { n: 2 } }]);
    await h.store.appendEvents(id, [ev(3)]);
    expect((await other.listEvents(id, { after: 1 })).map((e) => e.id)).toEqual([2, 3]);
    expect(await other.lastEventId(id)).toBe(3);
    appendFileSync(file, '{"id":4,"type":"message_ad');
    expect((await other.listEvents(id, { after: 2 })).map((e) => e.id)).toEqual([3]);
    expect(await other.lastEventId(id)).toBe(3);
  });

  it("a whole line that is not JSON is corrupt_session, and the log is left as it was", async () => {
    const { h, id, file } = await fileLogWith(1);
    appendFileSync(file, "not json\n");
    const before = readFileSync(file, "utf8");
    await expect(h.store.listEvents(id)).rejects.toMatchObject({ code: "corrupt_session" });
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("a torn last line is ignored and cut off by the next append", async () => {
    const { h, id, file } = await fileLogWith(1);
    appendFileSync(file, '{"id":2,"type":"message_ad');
    const store = await h.reopen();
    expect((await store.listEvents(id)).map((e) => e.id)).toEqual([1]);
    expect((await store.appendEvents(id, [ev(2)]))[0]?.id).toBe(2);
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(2);
    expect((await store.listEvents(id)).map((e) => e.id)).toEqual([1, 2]);
  });
});

describe("event log (file): the file's lines", () => {
  it("holds each record as JSON.stringify gives it, one a line, whatever a batch's lines weigh", async () => {
    const { h, id, file } = await fileLogWith(1);
    // Against the store's 96 KB encoding buffer: many small lines over several writes, a line that
    // fits it only by its exact size (ASCII), lines larger than it, two-byte text, a time of its own.
    const text = (i: number, n: number) => (i % 2 === 0 ? "ab" : "a\u2026").repeat(n / 2);
    const sizes = [...Array.from({ length: 300 }, () => 1000), 40_000, 20_000, 150_000, 5, 33_000, 120_000, 8];
    const batch = sizes.map((n, i) => ({
      type: i % 3 === 0 ? "message_added" : "run.token",
      data: { i, text: text(i, n) },
      ...(i === 301 ? { timestamp: "2026-01-01T00:00:00.000Z" } : {}),
    }));
    const records = [...(await h.store.listEvents(id)), ...(await h.store.appendEvents(id, batch))];
    records.push(...(await h.store.appendEvents(id, [ev(2)])));
    expect(readFileSync(file, "utf8")).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    expect((await (await h.reopen()).listEvents(id, { limit: 10_000 })).length).toBe(sizes.length + 2);
  });
});

describe.each(backends.filter((b) => b.name !== "file"))("inbox over the event log ($name)", (backend) => {
  // A steered run reads its inbox every step: a cursor left where the run began made each read scan
  // every record logged since, a cost growing with the run's length.
  it("a read that finds no message gives a cursor after the newest record it looked at", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession();
    const start = await store.readInbox(id);
    await store.appendEvents(id, [ev(1), ev(2), ev(3)]);
    const page = await store.readInbox(id, start.cursor);
    expect(page).toEqual({ messages: [], cursor: "3" });
    const posted = await store.postInbox(id, "steer");
    await store.appendEvents(id, [ev(5)]);
    const next = await store.readInbox(id, page.cursor);
    expect(next.messages.map((m) => [m.id, m.text])).toEqual([[posted.id, "steer"]]);
    expect(next.cursor).toBe("5");
    expect((await store.readInbox(id, next.cursor)).messages).toEqual([]);
  });

  it("a bad cursor is refused before the session is looked up; an unknown session is session_not_found", async () => {
    const { store } = await open(backend);
    const { id } = await store.createSession();
    await expect(store.readInbox(id, "not-a-cursor")).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(store.readInbox("no-such-session", "not-a-cursor")).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(store.readInbox("no-such-session", "0")).rejects.toMatchObject({ code: "session_not_found" });
    await expect(store.readInbox("no-such-session")).rejects.toMatchObject({ code: "session_not_found" });
    expect(await store.readInbox(id)).toEqual({ messages: [], cursor: "0" });
  });
});
