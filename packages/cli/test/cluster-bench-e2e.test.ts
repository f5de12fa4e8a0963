import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { delay, type ScriptAction, type StepContext, text } from "@arbor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { follow, type Instance, percentile, type Received, startInstance } from "./helpers/cluster.js";
import { FaultRig } from "./helpers/fault.js";
import { createTestDatabase } from "./helpers/postgres.js";

/**
 * The cluster's costs, measured on real processes: the added latency of an event seen on another
 * instance than the one driving the run, and runs/s with one and with three instances (on a
 * 2-core machine the point is the overhead, not scaling). Size: ARBOR_CLUSTER_BENCH_RUNS.
 */

const RUNS = Number(process.env.ARBOR_CLUSTER_BENCH_RUNS ?? 12);
let dir: string;
let workspace: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-cluster-bench-"));
  workspace = join(dir, "ws");
  await mkdir(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const isRun = (call: StepContext) => call.source === "http" && (call.body as { tools?: unknown[] }).tools !== undefined;

/** Reads a chat's whole stream on the instance it was posted to, with each event's arrival time. */
async function driveChat(url: string, message: string): Promise<Received[]> {
  const res = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const got: Received[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return got;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const lines = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const id = lines.find((l) => l.startsWith("id: "));
      const data = lines.find((l) => l.startsWith("data: "));
      if (id && data) got.push({ id: Number(id.slice(4)), event: JSON.parse(data.slice(6)), at: performance.now() });
    }
  }
}

async function cluster(rig: FaultRig, size: number, script: (call: StepContext) => readonly ScriptAction[], store: string) {
  const baseURL = await rig.fakeServer(Array.from({ length: RUNS * 4 + 100 }, () => script));
  const instances: Instance[] = [];
  for (let i = 0; i < size; i++) {
    instances.push(
      await startInstance(rig, `I${i}`, { baseURL, home: join(dir, "home"), store, takeoverMs: 5_000, cwd: workspace }),
    );
  }
  return instances;
}

describe("arbor serve --cluster costs", () => {
  it("events on another instance lag the driver's own stream by little; runs/s with one and three instances", async () => {
    const figures: Record<string, string> = {};
    const lags: number[] = [];
    {
      const db = await createTestDatabase();
      const rig = new FaultRig(() => workspace);
      try {
        // Tokens spaced out, so each is a batch of its own and its notification is measured.
        const paced = (call: StepContext): readonly ScriptAction[] =>
          isRun(call) ? Array.from({ length: 20 }, (_, i) => [text(`t${i} `), delay(40)]).flat() : [text("Title")];
        const [a, b] = await cluster(rig, 2, paced, db.url);
        for (let r = 0; r < Math.max(2, Math.floor(RUNS / 4)); r++) {
          const driving = driveChat((a as Instance).url, `measure ${r}`);
          // The watcher on B starts once the session exists, from the first event.
          const first = await new Promise<string>((resolve) => {
            const poll = async () => {
              const res = await fetch(`${(a as Instance).url}/api/sessions?limit=50`);
              const page = (await res.json()) as { sessions: Array<{ id: string; title?: string; status: string }> };
              const running = page.sessions.find((s) => s.status === "running");
              if (running) resolve(running.id);
              else setTimeout(poll, 20);
            };
            void poll();
          });
          const [own, other] = await Promise.all([driving, follow(first, () => b as Instance, performance.now() + 60_000)]);
          const at = new Map(own.map((e) => [e.id, e.at]));
          for (const e of other.events) {
            const t = at.get(e.id);
            if (t !== undefined && e.event.type === "token") lags.push(e.at - t);
          }
        }
      } finally {
        await rig.cleanup();
        await db.drop();
      }
    }
    figures.crossInstanceLag = `p50 ${percentile(lags, 50).toFixed(1)} ms, p99 ${percentile(lags, 99).toFixed(1)} ms over ${lags.length} events`;

    const quick = (call: StepContext): readonly ScriptAction[] => (isRun(call) ? [text("Done quickly.")] : [text("Title")]);
    for (const size of [1, 3]) {
      const db = await createTestDatabase();
      const rig = new FaultRig(() => workspace);
      try {
        const instances = await cluster(rig, size, quick, db.url);
        const started = performance.now();
        const streams = await Promise.all(
          Array.from({ length: RUNS }, (_, i) => driveChat((instances[i % size] as Instance).url, `quick ${i}`)),
        );
        const seconds = (performance.now() - started) / 1000;
        expect(streams.every((s) => s.at(-1)?.event.type === "done")).toBe(true);
        figures[`runsPerSecond${size}`] = (RUNS / seconds).toFixed(2);
      } finally {
        await rig.cleanup();
        await db.drop();
      }
    }
    console.log(`cluster bench (${RUNS} runs): ${JSON.stringify(figures)}`);
    expect(lags.length).toBeGreaterThan(0);
  }, 240_000);
});
