// Drives the loop section's run (same payloads, tool and scripted model) for profiling:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/loop/profile.mjs [file|sqlite|none] [runs] [steps]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// ARBOR_CORE=<dir of a built @arbor/core> compares another build (e.g. main's) in the same conditions.
const root = process.env.ARBOR_CORE;
const entry = (sub) =>
  root ? pathToFileURL(join(root, "dist", sub ? `entries/${sub}.js` : "index.js")).href : `@arbor/core${sub ? `/${sub}` : ""}`;
const core = Object.assign({}, ...(await Promise.all(["", "session", "store", "tools"].map((m) => import(entry(m))))));

import { consume, LOOP_BACKENDS, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [kind = "file", runsArg = "30", stepsArg = "201"] = process.argv.slice(2);
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
const tmp = mkdtempSync(join(tmpdir(), "arbor-prof-"));
const steps = Number(stepsArg);
const store = await openBackend(core, backend, tmp);
try {
  const cpus = [];
  for (let i = 0; i < Number(runsArg); i++) {
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    const r = await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 }, { stamps: true });
    cpus.push((r.cpuMs * 1000) / steps);
  }
  cpus.sort((a, b) => a - b);
  console.log(`${kind}: CPU µs/step p50 ${cpus[cpus.length >> 1].toFixed(0)} min ${cpus[0].toFixed(0)}`);
} finally {
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
}
