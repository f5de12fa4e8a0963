// One process's share of the loop section: `warmups` runs, then `repeats` measured runs of the tool loop
// on one backend, as a library user's harness drives them (a fresh process, so no other backend's runs
// have warmed the code first). Prints one JSON line: per measured run its wall ms, CPU ms, setup ms and
// median step µs; the first run's wall ms; what a run persists and emits.
//   node bench/loop/loop-runs.mjs <file|sqlite|none> <warmups> <repeats> <steps> <tmp dir>
// ARBOR_CORE=<dir of a built @arbor/core> runs another build (e.g. main's) in the same conditions.
import { join } from "node:path";
import { medianGapUs } from "../lib/stats.mjs";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [kind, warmupsArg, repeatsArg, stepsArg, tmp] = process.argv.slice(2);
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
if (!backend || !tmp) throw new Error("usage: loop-runs.mjs <file|sqlite|none> <warmups> <repeats> <steps> <tmp dir>");
const [warmups, repeats, steps] = [warmupsArg, repeatsArg, stepsArg].map(Number);
const core = await loadCore();
const store = await openBackend(core, backend, join(tmp, `${kind}-${warmups}`));
const runs = [];
let firstMs = 0;
let persisted;
try {
  for (let i = 0; i < warmups + repeats; i++) {
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    const r = await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 }, { stamps: true });
    if (r.result.steps !== steps) throw new Error(`expected ${steps} steps, the run made ${r.result.steps}`);
    if (i === 0) firstMs = r.ms;
    if (i < warmups) continue;
    runs.push({ ms: r.ms, cpuMs: r.cpuMs, mainCpuMs: r.mainCpuMs, setupMs: r.starts[0], stepUs: medianGapUs(r.starts) });
    if (i === warmups + repeats - 1 && backend.spec(tmp) !== null) {
      const by = {};
      for (const e of await store.getActivePath(r.sessionId))
        by[e.message?.role ?? e.type] = (by[e.message?.role ?? e.type] ?? 0) + 1;
      persisted = { entries: by, events: r.counts };
    }
  }
} finally {
  await store.close();
}
process.stdout.write(`${JSON.stringify({ firstMs, runs, persisted })}\n`);
