// Section "density": how many concurrent runs one `arbor serve` process carries on this machine. The server runs as
// its own process (as a user starts it) over the file store and over SQLite; the model is the testkit's fake
// OpenAI-compatible server in this process, streaming like a real one (300 ms to the first token, then 50 tokens/s)
// with one tool call (`read`) a step. N runs are started (spread over half a second), each read by its SSE client to
// the end. A token's delivery latency is from the fake server writing it to the client reading it (one clock: both
// are in this process). N steps up until the first N whose p99 latency passes 100 ms or where a run fails; the
// largest N that passed is the figure (target ≥ 500). CPU and peak RSS of the server process are per run.
// First profile (N = 50, loaded machine): a quarter of the server's main thread is `child_process.spawn`, from the
// first workspace snapshot each new session takes (git add + write-tree): spawning forks the ~200 MB server on its
// event loop, which stalls every run's token delivery meanwhile.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { REPO } from "../lib/env.mjs";
import { note, num, section, table } from "../lib/format.mjs";
import { summarize } from "../lib/stats.mjs";

const ARBOR_BIN = join(REPO, "packages/cli/bin/arbor.js");
const TARGET_N = 500;
const P99_MS = 100;
const FIRST_TOKEN_MS = 300;
const TOKEN_GAP_MS = 20; // 50 tokens/s
const TOKENS_PER_STEP = 15;
const TOOL_STEPS = 2; // then a closing step without a call: three model calls a run
/** A level whose runs are not all done by then has failed (a stuck run must not hold the section). */
const LEVEL_TIMEOUT_MS = 30_000;
/** Runs are started over this long, not in one burst: users do not arrive in the same millisecond. */
const SPREAD_MS = 500;

/** A step: the first token after 300 ms, one token per 20 ms, then a `read` call until the run has made two. */
function step(call) {
  const messages = call.source === "http" ? (call.body?.messages ?? []) : [];
  const calls = messages.filter((m) => m.role === "tool").length;
  const actions = [{ type: "delay", ms: FIRST_TOKEN_MS }];
  for (let k = 0; k < TOKENS_PER_STEP; k++) {
    if (k > 0) actions.push({ type: "delay", ms: TOKEN_GAP_MS });
    // A token names its request and place, so the reader can find when it was written.
    actions.push(text(`‹${call.index}.${k}› `));
  }
  if (calls < TOOL_STEPS) actions.push(toolCall("read", { path: "notes.txt" }));
  return actions;
}

/** Starts `arbor serve` on `store` and resolves once it listens. */
function startServer({ store, home, cwd, baseURL }) {
  const args = [ARBOR_BIN, "serve", "--port", "0", "--json", "--model", "openai-compatible/fake", "--base-url", baseURL];
  args.push("--cwd", cwd, "--store", store, "--create", "--no-resume");
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ARBOR_"))), ARBOR_HOME: home };
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b) => {
    stderr = (stderr + b.toString("utf8")).slice(-4000);
  });
  const exited = new Promise((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (b) => {
      out += b.toString("utf8");
      if (out.endsWith("\n")) resolve({ url: JSON.parse(out).url, child, exited, stderr: () => stderr });
    });
    child.on("close", (code) => reject(new Error(`arbor serve exited (${code}) before listening: ${stderr}`)));
  });
}

/** CPU ms (user + system) and RSS / peak RSS (MB) of a process, from /proc. */
function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuMs: (Number(f[11]) + Number(f[12])) * 10, rssMb: kb("VmRSS") / 1024 };
}

/** One chat over SSE: pushes each token's latency, resolves with how the run ended. */
async function chat(url, i, written, latencies, lastSeen) {
  const res = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: `run ${i}: read notes.txt twice` }),
  });
  if (!res.ok) return `HTTP ${res.status}`;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let last;
  let tokens = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const at = performance.now();
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").find((l) => l.startsWith("data: "));
      if (!data) continue;
      const event = JSON.parse(data.slice(6));
      last = event.type;
      lastSeen[i] = last;
      if (event.type === "token") {
        for (const m of event.content.matchAll(/‹(\d+\.\d+)›/g)) {
          const sent = written.get(m[1]);
          if (sent !== undefined) latencies.push(at - sent);
          tokens++;
        }
      }
      if (event.type === "permission_request") return "asked for permission";
    }
  }
  const expected = (TOOL_STEPS + 1) * TOKENS_PER_STEP;
  if (last !== "done") return `ended with ${last ?? "nothing"}`;
  return tokens === expected ? "done" : `${tokens} of ${expected} tokens`;
}

/** N runs at once against a running server: latency percentiles, failures, CPU and RSS of the server. */
async function level(server, n, written) {
  const latencies = [];
  const lastSeen = Array.from({ length: n }, () => "not started");
  const u0 = usage(server.child.pid);
  let peakRss = u0.rssMb;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, usage(server.child.pid).rssMb);
  }, 100);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), LEVEL_TIMEOUT_MS);
  });
  const runs = Array.from({ length: n }, async (_, i) => {
    await new Promise((r) => setTimeout(r, (i * SPREAD_MS) / n));
    return chat(server.url, i, written, latencies, lastSeen).catch((err) => `failed: ${err.message}`);
  });
  const outcome = await Promise.race([Promise.all(runs), timeout]);
  clearTimeout(timer);
  clearInterval(sampler);
  loop.disable();
  const u1 = usage(server.child.pid);
  // A stuck level names what its unfinished runs saw last.
  const stuck = lastSeen.filter((e) => e !== "done");
  const ends = outcome === "timeout" ? stuck.map((e) => `not done after ${LEVEL_TIMEOUT_MS / 1000} s, last: ${e}`) : outcome;
  const failures = ends.filter((e) => e !== "done");
  const s = summarize(latencies);
  return {
    n,
    wallS: (performance.now() - t0) / 1000,
    latency: s,
    failures: failures.length,
    firstFailure: failures[0],
    cpuMsPerRun: (u1.cpuMs - u0.cpuMs) / n,
    cpuShare: (u1.cpuMs - u0.cpuMs) / (performance.now() - t0),
    rssMbPerRun: (peakRss - u0.rssMb) / n,
    peakRss,
    clientLagP99: loop.percentile(99) / 1e6,
    ok: failures.length === 0 && s.p99 <= P99_MS,
  };
}

export async function run(ctx) {
  const levels = ctx.quick ? [50, 100, 200] : [50, 100, 200, 400, 500, 800];
  section(
    `Density: concurrent runs one arbor serve process carries (target: N ≥ ${TARGET_N} with p99 token delivery ≤ ${P99_MS} ms, no error)`,
  );
  note(
    `Fake OpenAI-compatible model: ${FIRST_TOKEN_MS} ms to first token, ${1000 / TOKEN_GAP_MS} tokens/s, ${TOKENS_PER_STEP} tokens`,
  );
  note(
    `and one read call a step, ${TOOL_STEPS + 1} steps a run; each run read over SSE. N steps up, stopping at the first that fails.`,
  );
  note("cpu/run and rss/run are the server process's (rss: peak over the level minus before it); 'client lag' is this");
  note("process's event-loop delay p99 (it hosts the fake model and every SSE client): high, and it shares the blame.");
  let written = new Map();
  const fake = await startFakeOpenAI({
    script: Array.from({ length: 20_000 }, () => step),
    onDelta: (_index, delta) => {
      const m = /‹(\d+\.\d+)›/.exec(delta);
      if (m) written.set(m[1], performance.now());
    },
  });
  const rows = [];
  const best = {};
  try {
    for (const [label, spec] of [
      ["file", (root) => join(root, "store")],
      ["sqlite", (root) => `sqlite:${join(root, "arbor.db")}`],
    ]) {
      const root = join(ctx.tmp, `density-${label}`);
      const cwd = join(root, "work");
      mkdirSync(cwd, { recursive: true });
      writeFileSync(join(cwd, "notes.txt"), "Twelve words of notes for the read tool to return to the model.\n");
      const server = await startServer({ store: spec(root), home: join(root, "home"), cwd, baseURL: fake.baseURL });
      try {
        best[label] = 0;
        for (const n of levels) {
          written = new Map();
          const r = await level(server, n, written);
          rows.push([
            label,
            n,
            num(r.latency.p50),
            num(r.latency.p99),
            num(r.latency.max),
            r.failures === 0 ? "0" : `${r.failures} (${r.firstFailure})`,
            num(r.cpuMsPerRun),
            `${num(r.cpuShare * 100)}%`,
            num(r.rssMbPerRun),
            num(r.peakRss),
            num(r.clientLagP99),
            num(r.wallS),
            r.ok ? "pass" : "FAIL",
          ]);
          if (!r.ok) break;
          best[label] = n;
        }
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    }
  } finally {
    await fake.close();
  }
  table(
    [
      "store",
      "N",
      "p50 ms",
      "p99 ms",
      "max ms",
      "errors",
      "cpu ms/run",
      "server cpu",
      "rss MB/run",
      "peak rss MB",
      "client lag p99",
      "wall s",
      "",
    ],
    rows,
  );
  for (const [label, n] of Object.entries(best)) {
    note(`${label}: largest N passing = ${n} (target ≥ ${TARGET_N}: ${n >= TARGET_N ? "met" : "MISSED"}, ${num(n / TARGET_N)}×)`);
  }
}
