// Two builds of @arbor/core in one process, runs alternating, for comparing CPU per step on a machine
// whose load moves (other work inflates the CPU time of a run too, so two processes minutes apart
// differ by more than most changes do; runs alternated in one process share the same conditions):
//   ARBOR_CORE_A=<dir of a built @arbor/core> node bench/loop/ab.mjs [file|sqlite|none] [pairs] [steps] [warm-ups]
// B is this worktree's build. Prints each build's CPU µs/step and the ratio B/A of each pair. Each build is
// code of its own to V8, so each tiers up on its own runs: TurboFan makes the loop's first optimized code
// over ~30 runs of 201 steps (tierup.mjs), and until then its compile jobs count in the process's CPU.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadBuildsAB, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [kind = "file", pairsArg = "20", stepsArg = "201", warmArg = "5"] = process.argv.slice(2);
const steps = Number(stepsArg);
const builds = await loadBuildsAB();
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
const tmp = mkdtempSync(join(tmpdir(), "arbor-ab-"));
const sides = [];
try {
  for (const [name, core] of builds) {
    const dir = join(tmp, name);
    sides.push({ name, core, dir, store: await openBackend(core, backend, dir), cpu: [] });
  }
  const once = async (side) => {
    const runtime = runtimeFor(side.core, { store: side.store, script: toolLoopScript(steps), tmp: side.dir });
    const r = await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 });
    return (r.cpuMs * 1000) / steps;
  };
  // The first runs of a process are JIT-cold: both builds warm up before anything is counted.
  for (let i = 0; i < Number(warmArg); i++) for (const side of sides) await once(side);
  const ratios = [];
  for (let i = 0; i < Number(pairsArg); i++) {
    // Each build goes first in every other pair, so neither always runs on the other's garbage.
    let a;
    let b;
    if (i % 2 === 0) {
      a = await once(sides[0]);
      b = await once(sides[1]);
    } else {
      b = await once(sides[1]);
      a = await once(sides[0]);
    }
    sides[0].cpu.push(a);
    sides[1].cpu.push(b);
    ratios.push(b / a);
  }
  const at = (values, q) => [...values].sort((x, y) => x - y)[Math.floor(values.length * q)];
  for (const side of sides) {
    console.log(
      `${kind} ${side.name}: CPU µs/step p50 ${at(side.cpu, 0.5).toFixed(0)} p25 ${at(side.cpu, 0.25).toFixed(0)} min ${at(side.cpu, 0).toFixed(0)}`,
    );
  }
  console.log(
    `B/A of each pair: p50 ${at(ratios, 0.5).toFixed(3)} (p25 ${at(ratios, 0.25).toFixed(3)}, p75 ${at(ratios, 0.75).toFixed(3)}); load ${loadavg()[0].toFixed(1)}`,
  );
} finally {
  for (const side of sides) await side.store.close();
  rmSync(tmp, { recursive: true, force: true });
}
