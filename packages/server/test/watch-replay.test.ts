import { join } from "node:path";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startServer } from "./helpers/server.js";

const EVENTS = 100_000;
const BATCH = 1000;
/**
 * The most CPU time the event loop may spend between two turns of a 1 ms timer while a watcher
 * replays the log. Counted on the thread's CPU clock, so time the machine gave to other processes
 * is not counted; what remains is this process's own work: a page of the replay, the client's
 * parsing, and now and then a garbage collection. A page keeps the longest turn near 12–20 ms on an
 * idle machine; under load it read 88–102 ms of the thread's CPU (in CI, and beside two busy loops: a
 * virtual machine may charge the running thread for time its host took), which a 100 ms bound failed
 * on. The fault this guards against, a replay that does not yield, blocks for seconds. It does not
 * pin the page size: pages 50 times larger made turns of 140–200 ms.
 */
const MAX_BLOCK_MS = 250;

/** How long the event loop went without turning: per tick of a 1 ms timer, the wall time and this thread's CPU time. */
function loopBlockProbe() {
  const cpuNow = () => {
    const { user, system } = process.threadCpuUsage?.() ?? process.cpuUsage();
    return (user + system) / 1000;
  };
  let wall = performance.now();
  let cpu = cpuNow();
  let maxWallMs = 0;
  let maxCpuMs = 0;
  const timer = setInterval(() => {
    const [w, c] = [performance.now(), cpuNow()];
    maxWallMs = Math.max(maxWallMs, w - wall);
    maxCpuMs = Math.max(maxCpuMs, c - cpu);
    [wall, cpu] = [w, c];
  }, 1);
  return () => {
    clearInterval(timer);
    return { maxWallMs, maxCpuMs };
  };
}

/** A `message_added` record as a run logs it (~300 bytes). */
const messageAdded = (n: number) => ({
  type: "message_added",
  data: {
    trace_id: "replayed",
    message: {
      message_id: `m${n.toString().padStart(8, "0")}`,
      parent_id: n === 1 ? null : `m${(n - 1).toString().padStart(8, "0")}`,
      role: n % 2 === 0 ? "assistant" : "tool",
      description: "tool call: list",
      model: "scripted",
      created_at: "2026-11-25T12:00:00.000Z",
    },
    affected_goals: [],
  },
});

const stores = [
  { name: "file", spec: (root: string) => join(root, "store") },
  { name: "sqlite", spec: (root: string) => `sqlite:${join(root, "arbor.db")}` },
];

describe.each(stores)("watch replay of a long event log ($name store)", ({ name, spec }) => {
  it(`sends ${EVENTS} logged events to a WebSocket watcher in order, never blocking the event loop for long`, async () => {
    const server = await startServer({ store: spec });
    const { id } = await server.store.createSession();
    for (let n = 1; n <= EVENTS; n += BATCH) {
      await server.store.appendEvents(
        id,
        Array.from({ length: BATCH }, (_, i) => messageAdded(n + i)),
      );
    }

    const probe = loopBlockProbe();
    const started = performance.now();
    const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/api/traces/${id}/watch?since_event_id=0`);
    let connected: unknown;
    let count = 0;
    let last = 0;
    let outOfOrder = 0;
    const done = new Promise<void>((resolve, reject) => {
      ws.on("message", (data) => {
        const message = JSON.parse(String(data)) as { event: string; event_id?: number };
        if (message.event === "connected") {
          connected = message;
          return;
        }
        if (message.event_id !== last + 1) outOfOrder++;
        last = message.event_id ?? last;
        if (++count === EVENTS) resolve();
      });
      ws.on("error", reject);
      ws.on("close", (code, reason) => reject(new Error(`closed ${code} ${String(reason)} after ${count} events`)));
    });
    // While the replay runs, the server still answers other requests.
    const health = await server.api("/api/health");
    expect(health.status).toBe(200);
    await done;
    const elapsed = performance.now() - started;
    const block = probe();
    ws.close();

    console.info(
      `watch replay (${name}): ${EVENTS} events in ${elapsed.toFixed(0)} ms; longest event-loop turn ${block.maxCpuMs.toFixed(1)} ms of CPU (${block.maxWallMs.toFixed(1)} ms wall)`,
    );
    expect(connected).toMatchObject({ event: "connected", current_event_id: EVENTS, first_event_id: 1 });
    expect({ count, last, outOfOrder }).toEqual({ count: EVENTS, last: EVENTS, outOfOrder: 0 });
    expect(block.maxCpuMs).toBeLessThan(MAX_BLOCK_MS);
  }, 120_000);
});
