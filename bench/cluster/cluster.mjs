// Section "cluster": what serving from several `arbor serve --cluster` processes over one PostgreSQL costs.
// Takeover after kill -9 of the instance driving a run (p50/p99, until another instance's first event of
// the woken run), the added latency of events read on another instance than the driver's (p50/p99), and
// runs/s with one and three instances on the scripted model (on 2 cores the point is the overhead of the
// queue and the shared log, not scaling). Needs PostgreSQL (ARBOR_TEST_POSTGRES_URL, default the local
// server); each instance runs under a hostname of its own where the machine allows it (root), so a
// killed instance's leases are freed by expiry, as across machines.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { delay, startFakeOpenAI, text } from "@arbor/testkit";
import pg from "pg";
import { note, num, section, table } from "../lib/format.mjs";
import { ARBOR_BIN, serveEnv } from "../lib/serve.mjs";
import { summarize } from "../lib/stats.mjs";

const POSTGRES_URL = process.env.ARBOR_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const TAKEOVER_MS = 3_000;

const OWN_HOSTS = (() => {
  const r = spawnSync("unshare", ["--uts", "sh", "-c", "hostname arbor-probe && hostname"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() === "arbor-probe";
})();

async function admin(statement) {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function freshDatabase() {
  const name = `arbor_bench_${randomBytes(5).toString("hex")}`;
  await admin(`create database "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

/** Starts `arbor serve --cluster` and resolves once it listens, with its URL, process and stderr lines. */
function startInstance(name, { baseURL, home, store, cwd }) {
  const args = [
    ARBOR_BIN,
    "serve",
    "--cluster",
    "--takeover-ms",
    String(TAKEOVER_MS),
    "--port",
    "0",
    "--json",
    "--model",
    "openai-compatible/fake",
    "--base-url",
    baseURL,
    "--cwd",
    cwd,
    "--store",
    store,
    "--create",
  ];
  const env = serveEnv(home);
  const child = OWN_HOSTS
    ? spawn("unshare", ["--uts", "sh", "-c", `hostname arbor-${name} && exec "$0" "$@"`, process.execPath, ...args], { env })
    : spawn(process.execPath, args, { env });
  const lines = [];
  let partial = "";
  child.stderr.on("data", (b) => {
    const at = performance.now();
    const parts = (partial + b.toString("utf8")).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) lines.push({ at, line });
  });
  const exited = new Promise((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (b) => {
      out += b.toString("utf8");
      if (out.endsWith("\n")) resolve({ name, url: JSON.parse(out).url, child, lines, exited });
    });
    child.on("close", (code) =>
      reject(new Error(`instance ${name} exited (${code}) before listening: ${lines.map((l) => l.line).join("\n")}`)),
    );
  });
}

/** Reads an SSE response's run events (id, event, arrival time) until `done`/`error` or `stop()` is true. */
async function readEvents(res, stop = () => false) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const got = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return got;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const lines = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const id = lines.find((l) => l.startsWith("id: "));
      const data = lines.find((l) => l.startsWith("data: "));
      if (!id || !data) continue;
      const event = JSON.parse(data.slice(6));
      got.push({ id: Number(id.slice(4)), event, at: performance.now() });
      if (event.type === "done" || event.type === "error" || stop(got)) {
        void reader.cancel().catch(() => undefined);
        return got;
      }
    }
  }
}

const postChat = (url, message) =>
  fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });

const stream = (url, sessionId, after = 0) => fetch(`${url}/api/sessions/${sessionId}/stream?last_event_id=${after}`);

/** The instance whose process holds the session's lease (drives its run), once one does. */
async function driverOf(db, sessionId, instances) {
  for (;;) {
    const { rows } = await db
      .query("select holder from arbor_leases where session_id = $1", [sessionId])
      .catch(() => ({ rows: [] }));
    const holder = rows[0]?.holder;
    const pid = typeof holder === "string" ? JSON.parse(holder).pid : holder?.pid;
    const inst = instances.find((i) => i.child.pid === pid);
    if (inst) return inst;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const isRun = (call) => call.source === "http" && call.body?.tools !== undefined;

/** One cluster on a fresh database with a fake provider answering `script`; `use` gets its instances. */
async function withCluster(ctx, size, script, use) {
  const db = await freshDatabase();
  const fake = await startFakeOpenAI({ script: Array.from({ length: 5_000 }, () => script) });
  const cwd = join(ctx.tmp, "cluster-ws");
  mkdirSync(cwd, { recursive: true });
  const instances = [];
  const client = new pg.Client({ connectionString: db.url });
  try {
    const opts = { baseURL: fake.baseURL, home: join(ctx.tmp, "cluster-home"), store: db.url, cwd };
    for (let i = 0; i < size; i++) instances.push(await startInstance(String.fromCharCode(97 + i), opts));
    await client.connect();
    return await use({ instances, db: client, opts, start: (name) => startInstance(name, opts) });
  } finally {
    for (const i of instances) i.child.kill("SIGKILL");
    await Promise.all(instances.map((i) => i.exited));
    await client.end().catch(() => undefined);
    await fake.close();
    await db.drop();
  }
}

export async function run(ctx) {
  const { quick } = ctx;
  section(
    `Cluster: three arbor serve --cluster processes over one PostgreSQL (${OWN_HOSTS ? "a hostname each: leases freed by expiry" : "one hostname: a dead pid frees its leases at once"}, takeover ${TAKEOVER_MS} ms)`,
  );
  try {
    await admin("select 1");
  } catch (err) {
    note(`skipped: no PostgreSQL at ${POSTGRES_URL} (${err.message})`);
    return;
  }
  const KILLS = quick ? 3 : 10;
  const LAG_RUNS = quick ? 3 : 8;
  const RUNS = quick ? 20 : 60;

  // Takeover: a run with a slow first answer is killed with its driver; the clock stops at the first
  // event of the woken run that a watcher on a surviving instance reads.
  const takeovers = [];
  await withCluster(
    ctx,
    3,
    (call) => (isRun(call) ? [text("Working. "), delay(800), text("Done.")] : [text("Title")]),
    async ({ instances, db, start }) => {
      for (let k = 0; k < KILLS; k++) {
        const res = await postChat(instances[k % 3].url, `takeover ${k}`);
        const sessionId = res.headers.get("x-arbor-session-id");
        void res.body.cancel();
        const driver = await driverOf(db, sessionId, instances);
        const watcher = instances.find((i) => i !== driver);
        // Up to now, so the watcher's next event is one the woken run writes.
        const seen = await readEvents(await stream(watcher.url, sessionId), (got) => got.some((e) => e.event.type === "token"));
        const last = seen.at(-1).id;
        const killed = performance.now();
        driver.child.kill("SIGKILL");
        await driver.exited;
        const woken = await readEvents(await stream(watcher.url, sessionId, last), (got) => got.length > 0);
        takeovers.push(woken[0].at - killed);
        if (woken.at(-1).event.type !== "done") await readEvents(await stream(watcher.url, sessionId, woken.at(-1).id));
        instances[instances.indexOf(driver)] = await start(driver.name);
      }
    },
  );

  // Cross-instance lag: tokens 40 ms apart, read on the driver and on another instance at once.
  const lags = [];
  await withCluster(
    ctx,
    2,
    (call) => (isRun(call) ? Array.from({ length: 20 }, (_, i) => [text(`t${i} `), delay(40)]).flat() : [text("Title")]),
    async ({ instances, db }) => {
      for (let r = 0; r < LAG_RUNS; r++) {
        const res = await postChat(instances[r % 2].url, `lag ${r}`);
        const sessionId = res.headers.get("x-arbor-session-id");
        void res.body.cancel();
        const driver = await driverOf(db, sessionId, instances);
        const other = instances.find((i) => i !== driver);
        const [own, far] = await Promise.all([
          stream(driver.url, sessionId).then((x) => readEvents(x)),
          stream(other.url, sessionId).then((x) => readEvents(x)),
        ]);
        const at = new Map(own.map((e) => [e.id, e.at]));
        for (const e of far) if (e.event.type === "token" && at.has(e.id)) lags.push(e.at - at.get(e.id));
      }
    },
  );

  // Throughput: RUNS chats posted at once, round-robin, each read to its end on the instance it went to.
  const rates = {};
  for (const size of [1, 3]) {
    await withCluster(
      ctx,
      size,
      (call) => (isRun(call) ? [text("Done quickly.")] : [text("Title")]),
      async ({ instances }) => {
        const t0 = performance.now();
        const streams = await Promise.all(
          Array.from({ length: RUNS }, (_, i) => postChat(instances[i % size].url, `quick ${i}`).then((res) => readEvents(res))),
        );
        const seconds = (performance.now() - t0) / 1000;
        const done = streams.filter((e) => e.at(-1)?.event.type === "done").length;
        if (done !== RUNS) {
          const failed = streams
            .filter((e) => e.at(-1)?.event.type !== "done")
            .map((e) => JSON.stringify(e.at(-1)?.event ?? "no events"));
          throw new Error(`${RUNS - done} of ${RUNS} runs did not finish: ${failed.join("; ")}`);
        }
        rates[size] = RUNS / seconds;
      },
    );
  }

  const t = summarize(takeovers);
  const l = summarize(lags);
  table(
    ["<measure", "n", "p50", "p99", "max"],
    [
      ["takeover after kill -9 (ms)", t.n, num(t.p50), num(t.p99), num(t.max)],
      ["added latency on another instance (ms)", l.n, num(l.p50), num(l.p99), num(l.max)],
    ],
  );
  table(
    ["<instances", "runs/s", "vs one"],
    [
      ["1", num(rates[1]), "1.00"],
      ["3", num(rates[3]), num(rates[3] / rates[1])],
    ],
  );
  note(
    `${RUNS} chats at once on the scripted model, each recorded and queued in PostgreSQL, taken by a worker, and streamed from the event log.`,
  );
}
