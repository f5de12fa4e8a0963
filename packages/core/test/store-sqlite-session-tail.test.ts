import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionMeta } from "../src/model/session.js";
import { openStore } from "../src/store/open.js";
import type { StoreSpec } from "../src/store/spec.js";
import { TAIL_SPAN } from "../src/store/sql/sqlite-session-tail.js";
import type { Store } from "../src/store/store.js";
import { tempDir } from "./loop/harness.js";

/**
 * The SQLite session row a lease holder lets lag (see sqlite-session-tail.ts): every reader, in this
 * process, in another, and after the holder died, sees what an update on every append would have written.
 */

const TTL_MS = 300;
const specOf = (dir: string): StoreSpec => ({ kind: "sqlite", file: join(dir, "arbor.db"), leaseTtlMs: TTL_MS });

/** The session row as stored, read past the store. */
function rawRow(dir: string, id: string): { tail: number | null; meta: SessionMeta } {
  const db = new Database(join(dir, "arbor.db"), { readonly: true });
  try {
    const row = db.prepare("select data, tail_seq from arbor_sessions where id = ?").get(id) as {
      data: string;
      tail_seq: number | null;
    };
    return { tail: row.tail_seq, meta: JSON.parse(row.data) as SessionMeta };
  } finally {
    db.close();
  }
}

/** Runs `statement` on the database past the store, as a hand edit would. */
function damage(dir: string, statement: string, id: string): void {
  const db = new Database(join(dir, "arbor.db"));
  try {
    db.prepare(statement).run(id);
  } finally {
    db.close();
  }
}

/** What the row must say after `n` messages of 3 tokens and 0.5 each, the last one `lastId`. */
function expectTotals(meta: SessionMeta | undefined, n: number, lastId: string): void {
  expect(meta?.leafEntryId).toBe(lastId);
  expect(meta?.totalMessages).toBe(n);
  expect(meta?.totalTokens).toBe(3 * n);
  expect(meta?.totalCost).toBe(0.5 * n);
}

const message = (i: number) => ({ role: "user" as const, content: `m${i}`, tokens: { input: 2, output: 1 }, cost: 0.5 });

describe("a SQLite session row its lease holder lets lag", () => {
  const opened: Store[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  async function open(dir: string): Promise<Store> {
    const store = await openStore(specOf(dir));
    opened.push(store);
    return store;
  }

  /** A store on a new database and a session whose holder died after `n` appends, leaving its row lagging. */
  async function leftLagging(n: number): Promise<{ dir: string; store: Store; id: string }> {
    const dir = tempDir();
    const store = await open(dir);
    const { id } = await store.createSession();
    await dieHolding(dir, id, n);
    return { dir, store, id };
  }

  /** The session as `listSessions` gives it. */
  async function listed(store: Store, id: string): Promise<SessionMeta | undefined> {
    return (await store.listSessions()).sessions.find((m) => m.id === id);
  }

  it("is read by another store as an update on every append would have written it, and exact once the lease is given back", async () => {
    const dir = tempDir();
    const holder = await open(dir);
    const reader = await open(dir);
    const { id } = await holder.createSession();
    const lease = await holder.acquireLease(id, "run");
    const first = await holder.appendMessage(id, message(0));
    let last = first;
    for (let i = 1; i < 5; i++) last = await holder.appendMessage(id, message(i));
    await holder.appendEntries(id, [{ type: "session_info", title: "lagging" }]);
    const titled = (await holder.getSession(id)) as SessionMeta;

    // The row lags: it says the first append, and marks where the entries it does not count start.
    const raw = rawRow(dir, id);
    expect(raw.tail).not.toBeNull();
    expectTotals(raw.meta, 1, first.id);

    const read = await reader.getSession(id);
    expect(read).toEqual({ ...titled, status: read?.status });
    expect(read?.title).toBe("lagging");
    expect(read?.totalMessages).toBe(5);
    expect(read?.leafEntryId).toBe(titled.leafEntryId);
    expect((await reader.listSessions()).sessions.find((s) => s.id === id)).toEqual(read);
    const path = await reader.getActivePath(id);
    expect(path.map((e) => e.id).slice(0, 5)).toContain(last.id);
    expect(path.at(-1)?.id).toBe(titled.leafEntryId);
    expect((await reader.getLivePath?.(id))?.entries.at(-1)?.id).toBe(titled.leafEntryId);

    await lease.release();
    const settled = rawRow(dir, id);
    expect(settled.tail).toBeNull();
    expect(settled.meta.leafEntryId).toBe(titled.leafEntryId);
    expectTotals({ ...settled.meta, leafEntryId: last.id }, 5, last.id);
    expect(settled.meta.title).toBe("lagging");
  });

  it("rewrites the row once an append is TAIL_SPAN rows past its tail, so a reader's scan stays short", async () => {
    const dir = tempDir();
    const holder = await open(dir);
    const { id } = await holder.createSession();
    await holder.acquireLease(id, "run");
    await holder.appendMessage(id, message(0));
    const tail = rawRow(dir, id).tail as number;
    let last = await holder.appendMessage(id, message(1));
    for (let i = 2; i <= TAIL_SPAN + 1; i++) last = await holder.appendMessage(id, message(i));
    // The last append's entry is the first past the span: it rewrote the row, which counts it.
    const moved = rawRow(dir, id);
    expect(moved.tail).toBe(tail + TAIL_SPAN + 1);
    expectTotals(moved.meta, TAIL_SPAN + 2, last.id);
    expectTotals((await (await open(dir)).getSession(id)) ?? undefined, TAIL_SPAN + 2, last.id);
  });

  it("is made exact before another write of the session in the holder's process, which then counts every entry", async () => {
    const dir = tempDir();
    const holder = await open(dir);
    const { id } = await holder.createSession();
    await holder.acquireLease(id, "run");
    const a = await holder.appendMessage(id, message(0));
    const b = await holder.appendMessage(id, message(1));
    await holder.appendMessage(id, message(2));
    expect(rawRow(dir, id).tail).not.toBeNull();
    const switched = await holder.switchLeaf(id, b.id);
    expect(switched.leafEntryId).toBe(b.id);
    expect(switched.totalMessages).toBe(3);
    expect(rawRow(dir, id)).toEqual({ tail: null, meta: switched });
    const next = await holder.appendMessage(id, message(3));
    expect(next.parentId).toBe(b.id);
    expect((await (await open(dir)).getActivePath(id)).map((e) => e.id)).toEqual([a.id, b.id, next.id]);
  });

  it("left lagging by a holder that died, is read folded and continued by the next holder", async () => {
    const { dir, store, id } = await leftLagging(4);
    const entries = await store.listEntries(id);
    expect(entries).toHaveLength(4);
    expectTotals((await store.getSession(id)) ?? undefined, 4, entries[3]!.id);

    // The dead holder's lease runs out; the next holder's append builds on the folded row.
    const lease = await whenFree(() => store.acquireLease(id, "next run"));
    const fifth = await store.appendMessage(id, message(4));
    expect(fifth.parentId).toBe(entries[3]!.id);
    await lease.release();
    const settled = rawRow(dir, id);
    expect(settled.tail).toBeNull();
    expectTotals(settled.meta, 5, fifth.id);
  });

  it("stays exact under group commit (durability fsync), where no append keeps the row", async () => {
    const dir = tempDir();
    const holder = await openStore({ ...specOf(dir), durability: "fsync" } as StoreSpec);
    opened.push(holder);
    const { id } = await holder.createSession();
    await holder.acquireLease(id, "run");
    const appended = await Promise.all([0, 1, 2].map((i) => holder.appendMessage(id, message(i))));
    const last = await holder.appendMessage(id, message(3));
    expect(appended.map((e) => e.id)).not.toContain(last.id);
    const raw = rawRow(dir, id);
    expect(raw.tail).toBeNull();
    expectTotals(raw.meta, 4, last.id);
  });

  it("left lagging and then damaged by hand, is listed as damaged and still deleted", async () => {
    const { dir, store, id } = await leftLagging(2);
    damage(dir, 'update arbor_sessions set data = \'{"version": 1, "id": "to\' where id = ?', id);
    await expect(store.getSession(id)).rejects.toMatchObject({ code: "corrupt_session" });
    expect((await listed(store, id))?.damaged).toContain("not valid JSON");
    await whenFree(() => store.deleteSession(id));
    expect(await store.getSession(id)).toBeUndefined();
  });

  it("left lagging with an entry of its tail damaged by hand, is listed as damaged", async () => {
    const { dir, store, id } = await leftLagging(3);
    damage(dir, "update arbor_entries set data = '{' where seq = (select max(seq) from arbor_entries where session_id = ?)", id);
    expect((await listed(store, id))?.damaged).toContain("not valid JSON");
  });

  it("reads a tail by rowid range, not through the session's whole index", () => {
    const dir = tempDir();
    return open(dir).then(() => {
      const db = new Database(join(dir, "arbor.db"), { readonly: true });
      try {
        const plan = db
          .prepare(
            "explain query plan select data from arbor_entries where seq > ? and seq <= ? and +session_id = ? order by seq",
          )
          .all(1, 2, "s")
          .map((r) => (r as { detail: string }).detail);
        expect(plan.join("; ")).toMatch(/USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
      } finally {
        db.close();
      }
    });
  });
});

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** A process takes the session's lease, appends `n` messages and dies holding it: the row is left lagging. */
async function dieHolding(dir: string, id: string, n: number): Promise<void> {
  const child = spawn(process.execPath, [fixture("lease-append-then-die.mjs"), JSON.stringify(specOf(dir)), id, String(n)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (b: Buffer) => (err += b));
  expect(await new Promise((resolve) => child.on("close", resolve)), err).toBe(0);
  expect(rawRow(dir, id).tail).not.toBeNull();
}

/** `op` once the dead holder's lease has expired (its TTL is TTL_MS): until then it is refused as busy. */
async function whenFree<T>(op: () => Promise<T>): Promise<T> {
  const until = Date.now() + 20 * TTL_MS;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if ((err as { code?: string }).code !== "session_busy" || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, TTL_MS / 4));
    }
  }
}
