// Section "cold": start-up cost of whole processes (issue 35, item 1). Each case is a fresh `node`,
// measured `RUNS` times: wall time from spawn (to exit, or to the first model request for `arbor
// run`), CPU time (user + system) and peak RSS at that moment, as medians. Targets: `arbor --version`,
// `--help` and `sessions list` on an empty store ≤ 150 ms and ≤ 60 MB; `arbor run` to its first model
// request ≤ 350 ms; `import("@arbor/core")` ≤ 40 MB above a bare `node -e 0`. That bare process is
// shown for scale: its RSS and CPU are the floor every case stands on.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, text } from "@arbor/testkit";
import { REPO } from "../lib/env.mjs";
import { note, num, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";

const ARBOR = join(REPO, "packages/cli/bin/arbor.js");
const PROBE = new URL("./probe.mjs", import.meta.url).pathname;

/** One process: resolves with its wall ms (to `at`, the probe's moment), CPU ms and peak RSS in MB. */
function measureOnce(args, { env, probeFile, at }) {
  rmSync(probeFile, { force: true });
  const started = performance.timeOrigin + performance.now();
  const child = spawn(process.execPath, ["--import", PROBE, ...args], {
    cwd: REPO,
    env: { ...env, ARBOR_BENCH_PROBE: probeFile, ...(at === "fetch" ? { ARBOR_BENCH_PROBE_AT: "fetch" } : {}) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      let probe;
      try {
        probe = JSON.parse(readFileSync(probeFile, "utf8"));
      } catch {
        return reject(new Error(`node ${args.join(" ")} exited ${code} without a reading: ${stderr.trim().split("\n")[0]}`));
      }
      if (code !== 0) return reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr.trim().split("\n")[0]}`));
      resolve({ wallMs: probe.at - started, cpuMs: probe.cpuMs, rssMb: probe.maxRssKb / 1024 });
    });
  });
}

async function measure(args, runs, opts) {
  const samples = [];
  // One unmeasured run first, so every measured one finds the files in the page cache (and Node's
  // compile cache filled, where the command enables it), as a user's second command would.
  await measureOnce(args, opts);
  for (let i = 0; i < runs; i++) samples.push(await measureOnce(args, opts));
  return {
    wallMs: median(samples.map((s) => s.wallMs)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    rssMb: median(samples.map((s) => s.rssMb)),
  };
}

/** The environment of a user with an empty Arbor home and no Arbor settings. */
function cleanEnv(home) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ARBOR_") && v !== undefined) env[k] = v;
  return { ...env, ARBOR_HOME: home, NO_COLOR: "1" };
}

export async function run(ctx) {
  const runs = ctx.quick ? 7 : 11;
  section(`Cold start: whole processes, median of ${runs} (after one warm-up run each)`);
  const dir = join(ctx.tmp, "cold");
  const home = join(dir, "home");
  const work = join(dir, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const env = cleanEnv(home);
  const probeFile = join(dir, "probe.json");
  const fake = await startFakeOpenAI({ script: Array.from({ length: runs + 1 }, () => [text("ok")]) });
  const cases = [
    { name: "node -e 0 (floor)", args: ["-e", "0"] },
    { name: "arbor --version", args: [ARBOR, "--version"], wall: 150, rss: 60, key: "version" },
    { name: "arbor --help", args: [ARBOR, "--help"], wall: 150, rss: 60, key: "help" },
    {
      name: "arbor sessions list (empty file store)",
      args: [ARBOR, "sessions", "list"],
      wall: 150,
      rss: 60,
      key: "sessions-list",
    },
    {
      name: 'import("@arbor/core")',
      args: ["--input-type=module", "-e", 'await import("@arbor/core")'],
      // Its target is what the import adds to the floor, not the whole process.
      rssAboveFloor: 40,
      key: "import-core",
    },
    {
      name: "arbor run → first model request",
      args: [ARBOR, "run", "--model", "openai-compatible/fake", "--base-url", fake.baseURL, "--cwd", work, "say ok"],
      wall: 350,
      at: "fetch",
      key: "run-first-request",
    },
  ];
  const rows = [];
  let floorRssMb;
  try {
    for (const c of cases) {
      try {
        const m = await measure(c.args, runs, { env, probeFile, at: c.at });
        if (c.key === undefined) floorRssMb = m.rssMb;
        const vs = c.key ? ctx.baseline.compare(`cold.${c.key}.cpu_ms`, m.cpuMs, "lower") : "–";
        if (c.key) ctx.baseline.compare(`cold.${c.key}.wall_ms`, m.wallMs, "lower");
        if (c.key) ctx.baseline.compare(`cold.${c.key}.rss_mb`, m.rssMb, "lower");
        rows.push([
          c.name,
          num(m.wallMs),
          c.wall ? `≤ ${c.wall}` : "",
          num(m.cpuMs),
          num(m.rssMb),
          c.rss ? `≤ ${c.rss}` : "",
          vs,
        ]);
        if (c.rssAboveFloor !== undefined && floorRssMb !== undefined) {
          rows.push([`  above node -e 0`, "", "", "", `+${num(m.rssMb - floorRssMb)}`, `≤ +${c.rssAboveFloor}`, ""]);
        }
      } catch (err) {
        rows.push([c.name, "failed", "", "", "", "", ""]);
        note(`${c.name}: ${err.message}`);
      }
    }
  } finally {
    await fake.close();
  }
  table(["<case", "wall ms", "target", "CPU ms", "peak RSS MB", "target", "CPU vs before"], rows);
  note("wall and CPU are to exit, or for `arbor run` to its first model request (the fake OpenAI server on loopback);");
  note("RSS is the process's own peak (VmHWM) at that moment. On a busy machine wall time exceeds CPU time:");
  note("compare CPU first, and take wall figures from an idle machine (the header prints the load).");
}
