// Section "density": how many concurrent runs one `arbor serve` process carries on this machine. The server runs as
// its own process (as a user starts it) over the file store and over SQLite; the model is the testkit's fake
// OpenAI-compatible server in a process of its own (density-model.mjs), streaming like a real one (300 ms to the first
// token, then 50 tokens/s) with one tool call (`read`) a step. N runs are started (spread over half a second), each
// read by its SSE client (node:http, in this process) to the end. A token's delivery latency is from the model
// writing it to the client reading it, on the monotonic clock all three processes share. N steps up until the first
// N whose p99 latency passes 100 ms or where a run fails; the largest N that passed is the figure (target ≥ 500).
// CPU and peak RSS of the server process are per run; this process's own CPU and event-loop delay are shown beside
// them, so a level where the clients were the bottleneck shows it.
// Where the server's CPU per run goes: bench/README.md, "Where the time goes", Density.
import { fork } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { note, num, section, table } from "../lib/format.mjs";
import { startListening, startServe } from "../lib/serve.mjs";
import { monotonicMs, postSse } from "../lib/sse.mjs";
import { summarize } from "../lib/stats.mjs";
import { FIRST_TOKEN_MS, TOKEN_GAP_MS, TOKENS_PER_STEP, TOOL_STEPS } from "./density-model.mjs";

const TARGET_N = 500;
const P99_MS = 100;
/** A level whose runs are not all done by then has failed (a stuck run must not hold the section). */
const LEVEL_TIMEOUT_MS = 30_000;
/** Runs are started over this long, not in one burst: users do not arrive in the same millisecond. */
const SPREAD_MS = 500;
/** Runs before the first level, not counted: a server's first runs load code and compile it once. */
const WARM_UP_RUNS = 10;

/** The fake model in its own process; resolves with its base URL and a way to collect the tokens' write times. */
function startModel() {
  const child = fork(new URL("./density-model.mjs", import.meta.url), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let answer;
  child.on("message", (m) => answer?.(m));
  const next = () => new Promise((resolve) => (answer = resolve));
  return next().then(({ baseURL }) => ({
    baseURL,
    /** Token key → when the model wrote it (monotonic ms), since the last call. */
    async written() {
      const reply = next();
      child.send("written");
      return new Map((await reply).written);
    },
    close() {
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.send("close");
      return exited;
    },
  }));
}

/**
 * Starts `arbor serve` on `store`. With DENSITY_CPU_PROF=<dir> it is profiled (the profile is written when it
 * stops); DENSITY_ARBOR_BIN=<path of another build's arbor.js> measures that build instead.
 */
function startServer({ store, home, cwd, baseURL }) {
  const prof = process.env.DENSITY_CPU_PROF;
  return startServe({
    home,
    ...(process.env.DENSITY_ARBOR_BIN ? { bin: process.env.DENSITY_ARBOR_BIN } : {}),
    nodeArgs: prof ? ["--cpu-prof", "--cpu-prof-dir", prof] : [],
    args: ["--model", "openai-compatible/fake", "--base-url", baseURL, "--cwd", cwd, "--store", store, "--create", "--no-resume"],
  });
}

/** The reference: the same chat over SSE from a server made of the AI SDK alone (density-ai-sdk-server.mjs). */
const REFERENCE = "AI SDK alone";
const REFERENCE_SERVER = new URL("./density-ai-sdk-server.mjs", import.meta.url).pathname;

/** /proc/<pid>/stat's fields after the command name. */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * CPU ms of a process and every process under it (the server's git runner and the git processes it
 * starts): on a 2-core machine what they spend is taken from the server's share as surely as its own.
 * Each live process's user + system time, plus what its children that have exited spent.
 */
function treeCpuMs(pid) {
  let ms = 0;
  try {
    const f = statFields(pid);
    ms = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean)) {
      ms += treeCpuMs(Number(child));
    }
  } catch {
    // A process that exited meanwhile: its time moves to its parent's children's count.
  }
  return ms;
}

/** CPU ms (user + system) of a process and of its tree, and RSS / peak RSS (MB) of the process, from /proc. */
function usage(pid) {
  const f = statFields(pid);
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuMs: (Number(f[11]) + Number(f[12])) * 10, treeCpuMs: treeCpuMs(pid), rssMb: kb("VmRSS") / 1024 };
}

/** One chat over SSE: records when each token arrived (monotonic ms), resolves with how the run ended. */
async function chat(url, i, arrived, lastSeen) {
  let last;
  let tokens = 0;
  let asked = false;
  const status = await postSse(
    `${url}/api/chat`,
    { message: `run ${i}: read notes.txt twice` },
    (event, at) => {
      last = event.type;
      lastSeen[i] = last;
      if (event.type === "token") {
        for (const m of event.content.matchAll(/‹(\d+\.\d+)›/g)) {
          arrived.push(m[1], at);
          tokens++;
        }
      }
      if (event.type === "permission_request") asked = true;
    },
    monotonicMs,
  );
  if (status !== 200) return `HTTP ${status}`;
  if (asked) return "asked for permission";
  const expected = (TOOL_STEPS + 1) * TOKENS_PER_STEP;
  if (last !== "done") return `ended with ${last ?? "nothing"}`;
  return tokens === expected ? "done" : `${tokens} of ${expected} tokens`;
}

/** N runs at once against a running server: latency percentiles, failures, CPU and RSS of the server. */
async function level(server, model, n) {
  const arrived = [];
  const lastSeen = Array.from({ length: n }, () => "not started");
  const u0 = usage(server.child.pid);
  let peakRss = u0.rssMb;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, usage(server.child.pid).rssMb);
  }, 100);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), LEVEL_TIMEOUT_MS);
  });
  const runs = Array.from({ length: n }, async (_, i) => {
    await new Promise((r) => setTimeout(r, (i * SPREAD_MS) / n));
    return chat(server.url, i, arrived, lastSeen).catch((err) => `failed: ${err.message}`);
  });
  const outcome = await Promise.race([Promise.all(runs), timeout]);
  const wallMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  clearTimeout(timer);
  clearInterval(sampler);
  loop.disable();
  const u1 = usage(server.child.pid);
  const written = await model.written();
  const latencies = [];
  for (let k = 0; k < arrived.length; k += 2) {
    const sent = written.get(arrived[k]);
    if (sent !== undefined) latencies.push(arrived[k + 1] - sent);
  }
  // A stuck level names what its unfinished runs saw last.
  const stuck = lastSeen.filter((e) => e !== "done");
  const ends = outcome === "timeout" ? stuck.map((e) => `not done after ${LEVEL_TIMEOUT_MS / 1000} s, last: ${e}`) : outcome;
  const failures = ends.filter((e) => e !== "done");
  const s = summarize(latencies);
  return {
    n,
    wallS: wallMs / 1000,
    latency: s,
    failures: failures.length,
    firstFailure: failures[0],
    cpuMsPerRun: (u1.cpuMs - u0.cpuMs) / n,
    treeCpuMsPerRun: (u1.treeCpuMs - u0.treeCpuMs) / n,
    cpuShare: (u1.cpuMs - u0.cpuMs) / wallMs,
    rssMbPerRun: (peakRss - u0.rssMb) / n,
    peakRss,
    clientCpuShare: (c1.user + c1.system) / 1000 / wallMs,
    clientLagP99: loop.percentile(99) / 1e6,
    ok: failures.length === 0 && s.p99 <= P99_MS,
  };
}

export async function run(ctx) {
  // DENSITY_LEVELS=100,200 (to profile a given load) runs just those, each whatever the one before gave.
  const chosen = process.env.DENSITY_LEVELS?.split(",").map(Number);
  const levels = chosen ?? (ctx.quick ? [50, 100, 200] : [50, 100, 200, 400, 500, 800]);
  const stores = (process.env.DENSITY_STORES ?? "file,sqlite,ai-sdk").split(",");
  section(
    `Density: concurrent runs one arbor serve process carries (target: N ≥ ${TARGET_N} with p99 token delivery ≤ ${P99_MS} ms, no error)`,
  );
  note(
    `Fake OpenAI-compatible model: ${FIRST_TOKEN_MS} ms to first token, ${1000 / TOKEN_GAP_MS} tokens/s, ${TOKENS_PER_STEP} tokens`,
  );
  note(
    `and one read call a step, ${TOOL_STEPS + 1} steps a run; each run read over SSE. N steps up, stopping at the first that fails.`,
  );
  note("Delivery is from the model writing a token to its SSE client reading it, on the machine's monotonic clock: the");
  note("model is a process of its own and the clients (node:http) are in this one, so neither shares the server's loop.");
  note("cpu/run and rss/run are the server process's (rss: peak over the level minus before it); '+children' is the");
  note("CPU per run of the server and every process under it (its git runner and the git processes it starts); 'client cpu' and");
  note("'client lag' (event-loop delay p99) are this process's: when high, the clients share the blame for p99.");
  note(`Each server first carries ${WARM_UP_RUNS} runs, not counted: its first runs load and compile code once.`);
  const model = await startModel();
  const rows = [];
  const best = {};
  try {
    for (const [key, label, spec] of [
      ["file", "file", (root) => join(root, "store")],
      ["sqlite", "sqlite", (root) => `sqlite:${join(root, "arbor.db")}`],
      ["ai-sdk", REFERENCE, null],
    ].filter(([key]) => stores.includes(key))) {
      const root = join(ctx.tmp, `density-${key}`);
      const cwd = join(root, "work");
      mkdirSync(cwd, { recursive: true });
      writeFileSync(join(cwd, "notes.txt"), "Twelve words of notes for the read tool to return to the model.\n");
      const server = spec
        ? await startServer({ store: spec(root), home: join(root, "home"), cwd, baseURL: model.baseURL })
        : await startListening([REFERENCE_SERVER, model.baseURL, cwd]);
      try {
        const warm = await level(server, model, WARM_UP_RUNS);
        if (warm.failures > 0) throw new Error(`a warm-up run failed: ${warm.firstFailure}`);
        best[label] = 0;
        let passing = true;
        for (const n of levels) {
          const r = await level(server, model, n);
          rows.push([
            label,
            n,
            num(r.latency.p50),
            num(r.latency.p99),
            num(r.latency.max),
            r.failures === 0 ? "0" : `${r.failures} (${r.firstFailure})`,
            num(r.cpuMsPerRun),
            num(r.treeCpuMsPerRun),
            `${num(r.cpuShare * 100)}%`,
            num(r.rssMbPerRun),
            num(r.peakRss),
            `${num(r.clientCpuShare * 100)}%`,
            num(r.clientLagP99),
            num(r.wallS),
            r.ok ? "pass" : "FAIL",
          ]);
          passing &&= r.ok;
          if (passing) best[label] = n;
          else if (!chosen) break;
        }
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    }
  } finally {
    await model.close();
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
      "+children",
      "server cpu",
      "rss MB/run",
      "peak rss MB",
      "client cpu",
      "client lag p99",
      "wall s",
      "",
    ],
    rows,
  );
  const reference = best[REFERENCE];
  for (const [label, n] of Object.entries(best)) {
    if (label === REFERENCE) continue;
    const vs = reference ? `; ${num(n / reference)}× the AI SDK alone's ${reference}` : "";
    note(
      `${label}: largest N passing = ${n} (target ≥ ${TARGET_N}: ${n >= TARGET_N ? "met" : "MISSED"}, ${num(n / TARGET_N)}×${vs})`,
    );
  }
  if (reference !== undefined) {
    note(`${REFERENCE}: largest N passing = ${reference}. The same chat over SSE from a server of the AI SDK's streamText`);
    note("and node:http alone (density-ai-sdk-server.mjs): the same model client, one tool, nothing stored, logged or");
    note("checked, no system prompt. A floor for a server built on the AI SDK on this machine, not a product.");
  }
}
