// Drives the loop section's run (same payloads, tool and scripted model) for profiling:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/loop/profile.mjs [file|sqlite|none] [runs] [steps]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

// ARBOR_CORE=<dir of a built @arbor/core> compares another build (e.g. main's) in the same conditions.
const core = await loadCore();

const [kind = "file", runsArg = "30", stepsArg = "201"] = process.argv.slice(2);
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
const tmp = mkdtempSync(join(tmpdir(), "arbor-prof-"));
const steps = Number(stepsArg);
const store = await openBackend(core, backend, tmp);
try {
  const cpus = [];
  const walls = [];
  const late = [];
  for (let i = 0; i < Number(runsArg); i++) {
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    const r = await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 }, { stamps: true });
    cpus.push((r.cpuMs * 1000) / steps);
    walls.push((r.ms * 1000) / steps);
    // With 1,000+ steps: the median step around step 10 and around step 1,000 (as the loop section's L2).
    if (steps > 1010) late.push([window(r.starts, 10), window(r.starts, 1000)]);
  }
  cpus.sort((a, b) => a - b);
  walls.sort((a, b) => a - b);
  const growth = late.map(([e, l]) => ` | µs/step @10 ${e.toFixed(0)} @1000 ${l.toFixed(0)} (${(l / e).toFixed(2)}×)`).join("");
  console.log(
    `${kind}: CPU µs/step p50 ${cpus[cpus.length >> 1].toFixed(0)} min ${cpus[0].toFixed(0)}; wall µs/step p50 ${walls[walls.length >> 1].toFixed(0)}${growth}`,
  );
} finally {
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
}

function window(starts, center) {
  const sample = [];
  for (let s = center - 9; s <= center + 10; s++) sample.push((starts[s] - starts[s - 1]) * 1000);
  return sample.sort((a, b) => a - b)[sample.length >> 1];
}
