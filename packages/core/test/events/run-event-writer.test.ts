import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunEventLog } from "../../src/events/run-event-log.js";
import { frameOfRecord, type RunEventFrame } from "../../src/events/run-event-records.js";
import { RunEventTail } from "../../src/events/run-event-tail.js";
import { BatchWriter } from "../../src/events/run-event-writer.js";
import { WatchHub } from "../../src/events/watch-hub.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { EventChannel } from "../../src/runtime/event-channel.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A SQLite store (its event append completes within the turn) that counts its `appendEvents` calls. */
async function countingSqlite(): Promise<{ store: Store; appends: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-writer-"));
  dirs.push(dir);
  const inner = await openStore({ kind: "sqlite", file: join(dir, "arbor.db") });
  const appends: number[] = [];
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key !== "appendEvents") return Reflect.get(target, key, receiver);
      return (sessionId: string, inputs: unknown[]) => {
        appends.push(inputs.length);
        return target.appendEvents(sessionId, inputs as never);
      };
    },
  });
  return { store, appends };
}

const token = (sessionId: string, n: number) => ({ type: "token", session_id: sessionId, content: String(n) }) as RunEvent;

/** A new session of `store` with a tail whose run has begun, and a writer logging into both. */
async function runningWriter(store: Store): Promise<{ id: string; tail: RunEventTail; writer: BatchWriter }> {
  const { id } = await store.createSession();
  const tail = new RunEventTail(id, 100);
  tail.beginRun();
  return { id, tail, writer: new BatchWriter(store, tail, undefined, undefined) };
}

describe("BatchWriter", () => {
  it("logs the events of one turn of the event loop in one append, even when each append completes at once", async () => {
    // A step emits its events a few microtasks apart; SQLite's append completes within the turn, so a
    // drain started at the first event left every event a commit of its own.
    const { store, appends } = await countingSqlite();
    try {
      const { id, tail, writer } = await runningWriter(store);
      await Promise.resolve();
      for (let n = 1; n <= 6; n++) {
        writer.push(token(id, n));
        for (let i = 0; i < 5; i++) await Promise.resolve();
      }
      writer.push({ type: "done", session_id: id } as RunEvent);
      await writer.finish();
      expect(appends).toEqual([7]);
      const logged = await store.listEvents(id);
      expect(logged.map((e) => e.type)).toEqual([...Array(6).fill("run.token"), "run.done"]);
      const read = tail.read(0);
      const frames: RunEventFrame[] = read === undefined || read === "dropped" ? [] : read.frames;
      expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await store.close();
    }
  });

  it("writes a burst of 1,000 streamed deltas in a few appends, every one in order", async () => {
    const { store, appends } = await countingSqlite();
    try {
      const { id } = await store.createSession();
      const writer = new BatchWriter(store, new RunEventTail(id, 10_000), undefined, undefined);
      // Deltas come a few microtasks apart, and each append ends while the next ones arrive: what
      // arrives meanwhile waits for the turn's end too, instead of going one or two at a time.
      for (let n = 0; n < 1_000; n++) {
        writer.push(token(id, n));
        await Promise.resolve();
        await Promise.resolve();
      }
      await writer.finish();
      // At most 512 an append: two appends, not one per delta or two.
      expect(appends.length).toBeLessThanOrEqual(3);
      const logged = await store.listEvents(id, { limit: 2_000 });
      expect(logged.map((e) => (e.data as { content: string }).content)).toEqual(
        Array.from({ length: 1_000 }, (_, n) => String(n)),
      );
    } finally {
      await store.close();
    }
  });
  it("writes a burst handed over in microtasks alone a full batch at a time while it lasts, not after it", async () => {
    // A fast stream's deltas never let the turn end: waiting for it held every event of the run until
    // the run was over (and its session's lease given back).
    const { store, appends } = await countingSqlite();
    try {
      const { id } = await store.createSession();
      const writer = new BatchWriter(store, new RunEventTail(id, 10_000), undefined, undefined);
      await Promise.resolve();
      const turnOver = { done: false };
      setImmediate(() => {
        turnOver.done = true;
      });
      for (let n = 0; n < 1_100; n++) {
        writer.push(token(id, n));
        await Promise.resolve();
      }
      for (let i = 0; i < 10; i++) await Promise.resolve();
      expect(turnOver.done).toBe(false);
      expect(appends).toEqual([512, 512]);
      await writer.finish();
      expect(appends).toEqual([512, 512, 76]);
      const logged = await store.listEvents(id, { limit: 2_000 });
      expect(logged.map((e) => (e.data as { content: string }).content)).toEqual(
        Array.from({ length: 1_100 }, (_, n) => String(n)),
      );
    } finally {
      await store.close();
    }
  });
  it("hands readers each event's JSON as its log record reads back", async () => {
    const { store } = await countingSqlite();
    try {
      const { id, tail, writer } = await runningWriter(store);
      const events = [
        { session_id: id, type: "token", content: 'quote " and \u00e9' },
        { type: "tool_start", session_id: id, tool: "read", input: { path: "a", lines: [1, 2] }, gone: undefined },
        { type: "token", session_id: id, content: "" },
        { type: "done", session_id: id },
      ] as unknown as RunEvent[];
      for (const event of events) writer.push(event);
      await writer.finish();
      const read = tail.read(0);
      const frames: RunEventFrame[] = read === undefined || read === "dropped" ? [] : read.frames;
      const records = await store.listEvents(id);
      expect(frames.map((f) => f.json)).toEqual(records.map((r) => frameOfRecord(r).json));
      expect(frames.map((f) => [f.id, f.terminal])).toEqual(records.map((r) => [r.id, r.type === "run.done"]));
    } finally {
      await store.close();
    }
  });
  it("hands readers a delta as it was logged, though its emitter changed the event afterwards", async () => {
    const { store } = await countingSqlite();
    try {
      const { id, tail, writer } = await runningWriter(store);
      const delta = { type: "token", session_id: id, content: "as sent" };
      const tagged = { type: "token", session_id: id, content: "x", tags: ["a"] };
      writer.push(delta as RunEvent);
      writer.push(tagged as RunEvent);
      await writer.finish();
      delta.content = "changed";
      tagged.tags.push("b");
      const read = tail.read(0);
      const frames: RunEventFrame[] = read === undefined || read === "dropped" ? [] : read.frames;
      const records = await store.listEvents(id);
      expect(frames.map((f) => JSON.parse(f.json))).toEqual([
        { type: "token", session_id: id, content: "as sent" },
        { type: "token", session_id: id, content: "x", tags: ["a"] },
      ]);
      expect(frames.map((f) => f.json)).toEqual(records.map((r) => frameOfRecord(r).json));
    } finally {
      await store.close();
    }
  });
});

describe("BatchWriter at a run's ending or ask", () => {
  it.each([
    ["a permission ask", { type: "permission_request", id: "p1", permission: "read", patterns: ["x"] }],
    ["the run's end", { type: "done" }],
  ])("logs %s within the turn it is pushed in, with the burst before it", async (_what, last) => {
    const { store, appends } = await countingSqlite();
    try {
      const { id } = await store.createSession();
      const writer = new BatchWriter(store, new RunEventTail(id, 100), undefined, undefined);
      await Promise.resolve();
      // Queued before the pushes: it runs once the turn they are in is over, as a waiting drain would.
      const turnOver = new Promise<void>((resolve) => setImmediate(resolve));
      writer.push(token(id, 1));
      writer.push({ ...last, session_id: id } as RunEvent);
      await turnOver;
      expect(appends).toEqual([2]);
      await writer.finish();
    } finally {
      await store.close();
    }
  });
});

describe("RunEventLog.logged", () => {
  it("puts a watch event after the run events emitted before it, though those are logged a turn later", async () => {
    const { store } = await countingSqlite();
    try {
      const { id } = await store.createSession();
      const log = new RunEventLog(store);
      const hub = new WatchHub(store, { followMs: 0 });
      hub.orderAfter((traceId) => log.logged(traceId));
      const stream = new EventChannel<RunEvent>();
      const { recorded } = log.record({ sessionId: id, [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() }, stream);
      // A tool call, then the sub-agent it starts: published at once, logged before the batch unless it waits.
      stream.push(token(id, 1));
      await hub.publish(id, { event: "sub_trace_started", parent_trace_id: id, agent_type: "explore" });
      stream.push({ type: "done", session_id: id } as RunEvent);
      stream.close();
      await recorded;
      const logged = await store.listEvents(id);
      expect(logged.map((e) => e.type)).toEqual(["run.token", "sub_trace_started", "run.done"]);
      expect(logged.map((e) => e.id)).toEqual([1, 2, 3]);
    } finally {
      await store.close();
    }
  });
});
