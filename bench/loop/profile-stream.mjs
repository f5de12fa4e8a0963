// Drives the stream section's run (N text deltas through the whole runtime, file store, event log on) for
// profiling or for comparing two builds in the same machine state:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/loop/profile-stream.mjs [runs] [deltas]
// ARBOR_CORE=<dir of a built @arbor/core> runs another build (e.g. main's) in the same conditions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { consume, runtimeFor, textScript } from "./harness.mjs";

const root = process.env.ARBOR_CORE;
const entry = (sub) =>
  root ? pathToFileURL(join(root, "dist", sub ? `entries/${sub}.js` : "index.js")).href : `@arbor/core${sub ? `/${sub}` : ""}`;
const core = Object.assign({}, ...(await Promise.all(["", "store"].map((m) => import(entry(m))))));

const [runsArg = "10", deltasArg = "50000"] = process.argv.slice(2);
const n = Number(deltasArg);
// The stream section's deltas: short word-like pieces, a few characters each.
const deltas = Array.from({ length: n }, (_, i) => (i % 13 === 12 ? `w${i}.\n` : `w${i} `));
const tmp = mkdtempSync(join(tmpdir(), "arbor-prof-"));
const store = await core.openStore({ kind: "file", dir: join(tmp, "stream-file"), durability: "process" });
try {
  const cpus = [];
  const walls = [];
  for (let i = 0; i < Number(runsArg); i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const runtime = runtimeFor(core, { store, script: textScript(deltas), tmp });
    await consume(runtime, { prompt: "Say a lot." }, { tokens: true });
    await runtime.close();
    const cpu = process.cpuUsage(cpu0);
    walls.push(((performance.now() - t0) * 1000) / n);
    cpus.push((cpu.user + cpu.system) / n);
  }
  cpus.sort((a, b) => a - b);
  walls.sort((a, b) => a - b);
  const p50 = (xs) => xs[xs.length >> 1].toFixed(2);
  console.log(
    `stream${root ? ` (${root})` : ""}: per delta, whole run: CPU µs p50 ${p50(cpus)} min ${cpus[0].toFixed(2)}; wall µs p50 ${p50(walls)} min ${walls[0].toFixed(2)}`,
  );
} finally {
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
}
