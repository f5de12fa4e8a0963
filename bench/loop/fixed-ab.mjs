// Two builds of @arbor/core in one process, one-step runs alternating (each on a runtime of its own), for
// comparing the fixed cost of a run on a machine whose load moves (see ab.mjs for why one process):
//   ARBOR_CORE_A=<dir of a built @arbor/core> node bench/loop/fixed-ab.mjs [file|sqlite|none] [pairs] [steps]
// B is this worktree's build. Prints each build's CPU and setup ms per run and the ratios B/A of each pair.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadBuildsAB, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [kind = "file", pairsArg = "300", stepsArg = "1"] = process.argv.slice(2);
const steps = Number(stepsArg);
const builds = await loadBuildsAB();
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
const tmp = mkdtempSync(join(tmpdir(), "arbor-fixed-ab-"));
const sides = [];
try {
  for (const [name, core] of builds) {
    const dir = join(tmp, name);
    sides.push({ name, core, dir, store: await openBackend(core, backend, dir), cpu: [], setup: [] });
  }
  const once = async (side) => {
    const runtime = runtimeFor(side.core, { store: side.store, script: toolLoopScript(steps), tmp: side.dir });
    const r = await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 }, { stamps: true });
    return [r.cpuMs, r.starts[0]];
  };
  // The first runs of a process are JIT-cold: both builds warm up before anything is counted.
  for (let i = 0; i < 100; i++) for (const side of sides) await once(side);
  const cpuRatios = [];
  const setupRatios = [];
  for (let i = 0; i < Number(pairsArg); i++) {
    // Each build goes first in every other pair, so neither always runs on the other's garbage.
    const [first, second] = i % 2 === 0 ? sides : [sides[1], sides[0]];
    const r1 = await once(first);
    const r2 = await once(second);
    const [a, b] = i % 2 === 0 ? [r1, r2] : [r2, r1];
    sides[0].cpu.push(a[0]);
    sides[0].setup.push(a[1]);
    sides[1].cpu.push(b[0]);
    sides[1].setup.push(b[1]);
    cpuRatios.push(b[0] / a[0]);
    setupRatios.push(b[1] / a[1]);
  }
  const at = (values, q) => [...values].sort((x, y) => x - y)[Math.floor(values.length * q)];
  const spread = (values, digits) =>
    `p50 ${at(values, 0.5).toFixed(digits)} (p25 ${at(values, 0.25).toFixed(digits)}, p75 ${at(values, 0.75).toFixed(digits)})`;
  for (const side of sides)
    console.log(`${kind} ${side.name}: CPU ms/run ${spread(side.cpu, 2)}; setup ms ${spread(side.setup, 2)}`);
  console.log(`B/A of each pair: CPU ${spread(cpuRatios, 3)}; setup ${spread(setupRatios, 3)}; load ${loadavg()[0].toFixed(1)}`);
} finally {
  for (const side of sides) await side.store.close();
  rmSync(tmp, { recursive: true, force: true });
}
