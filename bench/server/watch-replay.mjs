// H4 of section "server": one WebSocket watcher replaying a long event log (issue 15, defect 7). The server runs in
// this process, the watcher in a child process; a 1 ms timer measures how long the server's event loop goes
// without turning, on this thread's CPU clock (time the machine gave to other processes is not counted).
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "@arbor/server";
import { note, num, section, table } from "../lib/format.mjs";
import { percentile } from "../lib/stats.mjs";

const CLIENT = fileURLToPath(new URL("./watch-client.mjs", import.meta.url));
const BATCH = 1000;
const TURN_TARGET_MS = 10;

const messageAdded = (n) => ({
  type: "message_added",
  data: {
    trace_id: "replayed",
    message: {
      message_id: `m${n}`,
      parent_id: n === 1 ? null : `m${n - 1}`,
      role: n % 2 === 0 ? "assistant" : "tool",
      description: "tool call: list",
      model: "scripted",
      created_at: "2026-11-25T12:00:00.000Z",
    },
    affected_goals: [],
  },
});

/** Every turn of the event loop while it runs: this thread's CPU ms and the wall ms between two timer ticks. */
function turnProbe() {
  const cpuNow = () => {
    const { user, system } = process.threadCpuUsage?.() ?? process.cpuUsage();
    return (user + system) / 1000;
  };
  const cpuTurns = [];
  let maxWall = 0;
  let [wall, cpu] = [performance.now(), cpuNow()];
  const timer = setInterval(() => {
    const [w, c] = [performance.now(), cpuNow()];
    cpuTurns.push(c - cpu);
    maxWall = Math.max(maxWall, w - wall);
    [wall, cpu] = [w, c];
  }, 1);
  return () => {
    clearInterval(timer);
    return { cpuTurns, maxWall };
  };
}

async function replayOn(core, root, label, spec, events) {
  const store = await core.openStore(spec);
  const watch = new core.WatchHub(store);
  const runtime = core.createRuntime({
    store,
    watch,
    env: {},
    cwd: root,
    arborHome: root,
    blobs: new core.MemoryBlobStore(),
    tools: [],
  });
  const listening = await createServer({ runtime }).listen({ host: "127.0.0.1", port: 0 });
  try {
    const { id } = await store.createSession();
    for (let n = 1; n <= events; n += BATCH) {
      await store.appendEvents(
        id,
        Array.from({ length: Math.min(BATCH, events - n + 1) }, (_, i) => messageAdded(n + i)),
      );
    }
    const url = `${listening.url.replace("http", "ws")}/api/traces/${id}/watch?since_event_id=0`;
    const stop = turnProbe();
    const t0 = performance.now();
    const out = await new Promise((resolve, reject) =>
      execFile(process.execPath, [CLIENT, url, String(events)], (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    const ms = performance.now() - t0;
    const { cpuTurns, maxWall } = stop();
    const client = JSON.parse(out);
    return [
      label,
      num(ms),
      Math.round((events * 1000) / ms).toLocaleString("en-US"),
      num(percentile(cpuTurns, 50)),
      num(percentile(cpuTurns, 99)),
      num(percentile(cpuTurns, 100)),
      `≤ ${TURN_TARGET_MS}`,
      num(maxWall),
      client.events === events && client.inOrder ? "yes" : "NO",
    ];
  } finally {
    await listening.close();
    await runtime.close();
    await store.close();
  }
}

export async function watchReplay(core, tmp, quick) {
  const events = quick ? 20_000 : 100_000;
  section(`H4. One WebSocket watcher replaying a log of ${events.toLocaleString("en-US")} events (since_event_id=0)`);
  note("The log is written with appendEvents (~300-byte message_added records); the watcher, a child process, connects");
  note("and the clock runs until it has every event. A turn is the server thread's CPU time between two ticks of a");
  note("1 ms timer: how long the event loop was busy at a stretch (the first turns include the connection and JIT).");
  note("Wall is the longest gap between ticks, which also counts time the machine ran other processes.");
  const root = join(tmp, "watch-replay");
  mkdirSync(root, { recursive: true });
  const rows = [];
  rows.push(await replayOn(core, root, "file", { kind: "file", dir: join(root, "store"), durability: "process" }, events));
  rows.push(
    await replayOn(core, root, "sqlite", { kind: "sqlite", file: join(root, "arbor.db"), durability: "process" }, events),
  );
  table(
    [
      "<store",
      "time (ms)",
      "events/s",
      "turn p50 (ms)",
      "turn p99 (ms)",
      "turn max (ms)",
      "<target",
      "wall max (ms)",
      "<all once, in order",
    ],
    rows,
  );
}
