import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRuntime } from "../src/runtime.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { MemoryBlobStore } from "../src/tools/blob-store.js";
import { collect, gateTool, harness, tempDir } from "./loop/harness.js";

const sqlite = (dir: string) => ({ kind: "sqlite" as const, file: join(dir, "arbor.db") });

/** The user messages' text the model was sent in its `n`th call. */
function userTexts(model: ReturnType<typeof scriptedModel>, n: number): string {
  return JSON.stringify(model.calls[n]!.prompt.filter((m) => m.role === "user"));
}

describe("the SQLite store's look at a driven session's inbox", () => {
  const opened: Store[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const s of opened.splice(0)) await s.close();
  });

  /** A store and another on the same file, with a session; the clock stands still, so the look that comes every INBOX_LOOK_MS anyway cannot answer for the data_version under load. */
  async function twoStoresOnOneFile() {
    vi.useFakeTimers({ toFake: ["Date"] });
    const dir = tempDir();
    const store = await openStore(sqlite(dir));
    const other = await openStore(sqlite(dir));
    opened.push(store, other);
    return { store, other, session: await store.createSession() };
  }

  it("answers false only while no other connection committed and nothing was posted here since the read", async () => {
    const { store, other, session } = await twoStoresOnOneFile();
    await store.appendEvents(session.id, [{ type: "run_step", data: { n: 0 } }]);
    // Not driven here: nothing is known, every step reads.
    const idle = (await store.readInbox(session.id)).cursor;
    expect(store.inboxMayHaveNew?.(session.id, idle)).toBe(true);

    const lease = await store.acquireLease(session.id, "run");
    let cursor = (await store.readInbox(session.id)).cursor;
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(false);
    // Another reader's cursor is not the one the read gave.
    expect(store.inboxMayHaveNew?.(session.id, "0")).toBe(true);

    // Another store on the file: its commit changes this connection's data_version at once.
    await other.postInbox(session.id, "from another store");
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    let page = await store.readInbox(session.id, cursor);
    expect(page.messages.map((m) => m.text)).toEqual(["from another store"]);
    cursor = page.cursor;
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(false);

    // This store's own post: data_version does not move, the post is noted.
    await store.postInbox(session.id, "from here");
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    page = await store.readInbox(session.id, cursor);
    expect(page.messages.map((m) => m.text)).toEqual(["from here"]);
    cursor = page.cursor;
    // This store's other writes (the run's own events and entries) do not count.
    await store.appendEvents(session.id, [{ type: "run_step", data: { n: 1 } }]);
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(false);

    // Whatever happens, a run reads at least every INBOX_LOOK_MS.
    vi.advanceTimersByTime(50);
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    cursor = (await store.readInbox(session.id, cursor)).cursor;
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(false);

    // The lease's end forgets the session.
    await lease.release();
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
  });

  it("an append's write transaction samples data_version for the next step, which then runs no statement of its own", async () => {
    const { store, other, session } = await twoStoresOnOneFile();
    await store.acquireLease(session.id, "run");
    const custom = [{ type: "custom" as const, customType: "step" }];
    let cursor = (await store.readInbox(session.id)).cursor;
    // The step's own commit: sampled, unchanged.
    await store.appendEntries(session.id, custom);
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(false);

    // Another store's post before this store's next commit: that commit's sample shows it.
    await other.postInbox(session.id, "before the commit");
    await store.appendEntries(session.id, custom);
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    const page = await store.readInbox(session.id, cursor);
    expect(page.messages.map((m) => m.text)).toEqual(["before the commit"]);
    cursor = page.cursor;

    // One left after this store's last commit is seen after its next one (or by the look due every
    // INBOX_LOOK_MS): a step commits at least once, so at most a step later.
    await store.appendEntries(session.id, custom);
    await other.postInbox(session.id, "after the commit");
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(false);
    await store.appendEntries(session.id, custom);
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    expect((await store.readInbox(session.id, cursor)).messages.map((m) => m.text)).toEqual(["after the commit"]);
  });

  it("a post in flight counts from its start: a read that runs before its commit is followed by another", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = await openStore(sqlite(tempDir()));
    opened.push(store);
    const session = await store.createSession();
    await store.acquireLease(session.id, "run");
    const cursor = (await store.readInbox(session.id)).cursor;
    const posted = store.postInbox(session.id, "queued");
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    await posted;
    expect(store.inboxMayHaveNew?.(session.id, cursor)).toBe(true);
    const page = await store.readInbox(session.id, cursor);
    expect(page.messages.map((m) => m.text)).toEqual(["queued"]);
    expect(store.inboxMayHaveNew?.(session.id, page.cursor)).toBe(false);
  });

  it("a run reads at its next step a message another store instance leaves on the file", async () => {
    const dir = tempDir();
    const store = await openStore(sqlite(dir));
    opened.push(store);
    const g = gateTool();
    const model = scriptedModel([[toolCall("gate", {})], [text("noted")]]);
    const { runtime } = await harness({ model, tools: [g.tool], store });
    const run = runtime.runs.run({ prompt: "go" });
    await g.reached;
    const otherStore = await openStore(sqlite(dir));
    const other = createRuntime({ store: otherStore, cwd: tempDir(), env: {}, blobs: new MemoryBlobStore() });
    try {
      await other.sessions.steer(run.sessionId, "from another terminal");
    } finally {
      await other.close();
      await otherStore.close();
    }
    g.release();
    expect((await collect(run)).result.status).toBe("done");
    expect(userTexts(model, 1)).toContain("from another terminal");
  });

  it("a run reads at its next step a message left through its own store", async () => {
    const store = await openStore(sqlite(tempDir()));
    opened.push(store);
    const g = gateTool();
    const model = scriptedModel([[toolCall("gate", {})], [toolCall("gate", {})], [text("noted")]]);
    const { runtime } = await harness({ model, tools: [g.tool], store });
    const run = runtime.runs.run({ prompt: "go" });
    await g.reached;
    await runtime.sessions.steer(run.sessionId, "first note");
    g.release();
    await g.reachedCall(2);
    await runtime.sessions.steer(run.sessionId, "second note");
    g.release();
    expect((await collect(run)).result.status).toBe("done");
    expect(userTexts(model, 1)).toContain("first note");
    expect(userTexts(model, 1)).not.toContain("second note");
    expect(userTexts(model, 2)).toContain("second note");
  });
});
