import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RUN_EVENT_PREFIX } from "../../src/events/run-event-records.js";
import { WatchEventSchema, type WatchMessage, WatchMessageSchema } from "../../src/events/watch-events.js";
import { WatchHub } from "../../src/events/watch-hub.js";
import { createRuntime } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { defineTool } from "../../src/tools/tool.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fileStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-watch-"));
  const store = await openStore(dir);
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

const done = (n: number) => ({
  event: "trace_completed" as const,
  status: "done",
  stats: { total_messages: n, total_tokens: 0, total_cost: 0 },
});

/** A watcher that records what it is sent. */
async function watcher(hub: WatchHub, traceId: string, since: number) {
  const received: WatchMessage[] = [];
  const stop = await hub.watch(traceId, since, (m) => received.push(WatchMessageSchema.parse(m)));
  cleanups.push(stop);
  return { received, ids: () => received.flatMap((m) => ("event_id" in m ? [m.event_id] : [])), stop };
}

describe("WatchHub", () => {
  it("sends connected, then the log after since, then live events, each once", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const { id } = await store.createSession();
    for (let i = 1; i <= 3; i++) await hub.publish(id, done(i));
    const w = await watcher(hub, id, 1);
    expect(w.received[0]).toEqual({ event: "connected", trace_id: id, current_event_id: 3, first_event_id: 1, goal_tree: null });
    expect(w.ids()).toEqual([2, 3]);
    await hub.publish(id, done(4));
    expect(w.ids()).toEqual([2, 3, 4]);
    const last = w.received.at(-1);
    expect(WatchEventSchema.parse(last)).toMatchObject({
      event: "trace_completed",
      event_id: 4,
      trace_id: id,
      stats: { total_messages: 4 },
    });
    w.stop();
    await hub.publish(id, done(5));
    expect(w.ids()).toEqual([2, 3, 4]);
  });

  it("watchers that connect while events are being published each get every event exactly once", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const { id } = await store.createSession();
    // Ten events are logged first, so every since below is an id a client could have seen.
    for (let i = 1; i <= 10; i++) await hub.publish(id, done(i));
    const publishing: Promise<void>[] = [];
    const watchers: Array<{ since: number; w: Promise<Awaited<ReturnType<typeof watcher>>> }> = [];
    for (let i = 11; i <= 120; i++) {
      publishing.push(hub.publish(id, done(i)));
      if (i % 11 === 0) {
        const since = [0, 3, 7, 10][i % 4] as number;
        watchers.push({ since, w: watcher(hub, id, since) });
      }
    }
    await Promise.all(publishing);
    await hub.flush();
    for (const { since, w } of watchers) {
      const ids = (await w).ids();
      expect(ids).toEqual(Array.from({ length: 120 - since }, (_, k) => since + k + 1));
    }
  });

  it("flush(traceId) waits for that trace's publishes only, not for another trace's held write", async () => {
    const inner = await fileStore();
    let unblock!: () => void;
    const held = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    // The store holds every append to trace "slow" until the test lets it go.
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        if (key !== "appendEvents") return Reflect.get(target, key, receiver);
        return async (traceId: string, events: Parameters<Store["appendEvents"]>[1]) => {
          if (traceId === "slow") await held;
          return target.appendEvents(traceId, events);
        };
      },
    });
    const hub = new WatchHub(store);
    await inner.createSession({ id: "slow" });
    await inner.createSession({ id: "fast" });
    const w = await watcher(hub, "fast", 0);
    const slow = hub.publish("slow", done(1));
    for (let i = 1; i <= 3; i++) void hub.publish("fast", done(i));
    await hub.flush("fast");
    expect(w.ids()).toEqual([1, 2, 3]);
    unblock();
    await slow;
    await hub.flush();
    expect((await inner.listEvents("slow", {})).length).toBe(1);
  });

  it("publishes made while a trace's log is written go in one append, logged and delivered in call order", async () => {
    const inner = await fileStore();
    const appends: number[] = [];
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        if (key !== "appendEvents") return Reflect.get(target, key, receiver);
        return (traceId: string, events: Parameters<Store["appendEvents"]>[1]) => {
          appends.push(events.length);
          return target.appendEvents(traceId, events);
        };
      },
    });
    const hub = new WatchHub(store);
    const { id } = await inner.createSession();
    const w = await watcher(hub, id, 0);
    const published = Array.from({ length: 50 }, (_, i) => hub.publish(id, done(i + 1)));
    await Promise.all(published);
    // The first is written at once; the 49 made while it was written go together.
    expect(appends).toEqual([1, 49]);
    expect(w.ids()).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const logged = await inner.listEvents(id, {});
    expect(logged.map((r) => (r.data.stats as { total_messages: number }).total_messages)).toEqual(w.ids());
  });

  it("an event the store refuses costs only itself its place in a batch, and goes to onError", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-watch-small-"));
    const store = await openStore({ kind: "file", dir, maxEntryBytes: 2_000 });
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const errors: unknown[] = [];
    const hub = new WatchHub(store, { onError: (err) => errors.push(err) });
    const { id } = await store.createSession();
    const huge = { event: "trace_started" as const, kind: "prompt" as const, agent: "x".repeat(5_000) };
    await Promise.all([hub.publish(id, done(1)), hub.publish(id, huge), hub.publish(id, done(2))]);
    expect(errors).toMatchObject([{ code: "entry_too_large" }]);
    expect((await store.listEvents(id, {})).map((r) => [r.id, r.type])).toEqual([
      [1, "trace_completed"],
      [2, "trace_completed"],
    ]);
  });

  it("a sub-trace's events are logged in its own log and its ancestors', with the sub-trace's id", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const root = await store.createSession({ id: "root" });
    const sub = await store.createSession({ id: "root@explore-20260101000000-001", parentSessionId: root.id });
    const parentWatch = await watcher(hub, root.id, 0);
    await hub.publish(sub.id, { event: "sub_trace_started", parent_trace_id: root.id, agent_type: "explore" });
    await hub.publish(root.id, done(1));
    expect(parentWatch.received.slice(1).map((m) => [m.event, m.trace_id, "event_id" in m && m.event_id])).toEqual([
      ["sub_trace_started", sub.id, 1],
      ["trace_completed", root.id, 2],
    ]);
    expect((await store.listEvents(sub.id)).map((e) => [e.id, e.type])).toEqual([[1, "sub_trace_started"]]);
  });

  it("a since beyond the log counts as its end; an unknown trace is session_not_found", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const { id } = await store.createSession();
    await hub.publish(id, done(1));
    const w = await watcher(hub, id, 50);
    expect(w.received[0]).toMatchObject({ event: "connected", current_event_id: 1 });
    await hub.publish(id, done(2));
    expect(w.ids()).toEqual([2]);
    await expect(hub.watch("nosuch", 0, () => {})).rejects.toMatchObject({ code: "session_not_found" });
    // Publishing to a deleted session is dropped, never thrown into a run.
    await store.deleteSession(id);
    await expect(hub.publish(id, done(3))).resolves.toBeUndefined();
  });

  it("replays a long log a page at a time, awaiting drain between pages; events published meanwhile arrive once, in order", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const { id } = await store.createSession();
    const logged = 1000;
    for (let n = 1; n <= logged; n += 100) {
      await store.appendEvents(
        id,
        Array.from({ length: 100 }, (_, i) => ({ type: "trace_completed", data: done(n + i) })),
      );
    }
    const received: number[] = [];
    let drains = 0;
    let publishing: Promise<void> | undefined;
    const stop = await hub.watch(
      id,
      0,
      (m) => {
        if ("event_id" in m) received.push(m.event_id);
      },
      {
        drain: async () => {
          drains++;
          // While the backlog is still being sent, a run goes on publishing.
          if (drains === 2) publishing = Promise.all([1, 2, 3].map((i) => hub.publish(id, done(logged + i)))).then(() => {});
          await publishing;
        },
      },
    );
    cleanups.push(stop);
    await hub.flush();
    expect(drains).toBeGreaterThanOrEqual(3);
    expect(received).toEqual(Array.from({ length: logged + 3 }, (_, k) => k + 1));
  });

  it("a watch whose signal is aborted during the backlog stops reading and is not subscribed any more", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const { id } = await store.createSession();
    await store.appendEvents(
      id,
      Array.from({ length: 1000 }, (_, i) => ({ type: "trace_completed", data: done(i) })),
    );
    const left = new AbortController();
    const received: WatchMessage[] = [];
    await hub.watch(id, 0, (m) => received.push(m), {
      drain: async () => left.abort(),
      signal: left.signal,
    });
    const sent = received.length;
    expect(sent).toBeGreaterThan(1);
    expect(sent).toBeLessThan(1001);
    await hub.publish(id, done(1001));
    expect(received).toHaveLength(sent);
  });

  it("a runtime given the hub publishes message_added for each message, in order", async () => {
    const store = await fileStore();
    const hub = new WatchHub(store);
    const dir = mkdtempSync(join(tmpdir(), "arbor-watch-ws-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const runtime = createRuntime({
      store,
      watch: hub,
      model: scriptedModel([[toolCall("list", {}, { id: "c1" })], [text("two files")]]),
      env: {},
      cwd: dir,
      arborHome: dir,
      blobs: new MemoryBlobStore(),
    });
    cleanups.push(() => runtime.close());
    const handle = runtime.runs.run({ prompt: "what is here?" });
    for await (const _ of handle);
    await hub.flush();
    // The run's own stream shares the log (`run.*` records, which the runtime now records for every run).
    const events = (await store.listEvents(handle.sessionId))
      .filter((r) => !r.type.startsWith(RUN_EVENT_PREFIX))
      .map((r) => WatchEventSchema.parse({ ...r.data, event: r.type, event_id: r.id, timestamp: r.timestamp }));
    const messages = events.flatMap((e) => (e.event === "message_added" ? [e.message] : []));
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const path = await store.getActivePath(handle.sessionId);
    expect(messages.map((m) => m.message_id)).toEqual(path.filter((e) => e.type === "message").map((e) => e.id));
    expect(messages[1]).toMatchObject({ description: "tool call: list" });
  });

  it("a run faster than its log has its run events and watch events logged before it gives up its session", async () => {
    const inner = await fileStore();
    let leased = false;
    const logged: Array<{ types: string[]; leased: boolean }> = [];
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        if (key === "appendEvents") {
          return (traceId: string, events: Parameters<Store["appendEvents"]>[1]) => {
            logged.push({ types: events.map((e) => e.type), leased });
            return target.appendEvents(traceId, events);
          };
        }
        if (key === "acquireLease") {
          return async (sessionId: string, purpose: string) => {
            const lease = await target.acquireLease(sessionId, purpose);
            leased = true;
            return {
              ...lease,
              release: async () => {
                leased = false;
                await lease.release();
              },
            };
          };
        }
        return Reflect.get(target, key, receiver);
      },
    });
    const dir = mkdtempSync(join(tmpdir(), "arbor-watch-ws-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // The scripted model and the tool answer at once: the whole run goes by within one turn of the event loop.
    const steps = Array.from({ length: 5 }, (_, i) => [toolCall("noop", { n: i }, { id: `c${i}` })]);
    const noop = defineTool({
      name: "noop",
      description: "Answers at once.",
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => ({ output: `noted ${n}` }),
    });
    const runtime = createRuntime({
      store,
      model: scriptedModel([...steps, [text("done")]]),
      tools: [noop],
      env: {},
      cwd: dir,
      arborHome: dir,
      blobs: new MemoryBlobStore(),
    });
    const handle = runtime.runs.run({ prompt: "note five numbers" });
    for await (const _ of handle);
    // Waits for what follows the run's end too.
    await runtime.close();
    const after = logged.filter((l) => !l.leased).flatMap((l) => l.types);
    // Only what follows the run's end: its done (emitted once the session is free) and trace_completed.
    expect(after.sort()).toEqual(["run.done", "trace_completed"]);
    const during = logged.filter((l) => l.leased).flatMap((l) => l.types);
    expect(during.filter((t) => t === "message_added")).toHaveLength(12);
    // Batched: a handful of appends for the run's ~50 events, not one each.
    expect(logged.filter((l) => l.leased).length).toBeLessThan(6);
  });
});
