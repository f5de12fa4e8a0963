// The fixed cost of a run: what `runtime.runs.run()` pays apart from its steps (admission, lease, session,
// system prompt, tool schemas, title, user message; then final events, lease release, session.json,
// index). Each run is one step (a scripted answer, no tool) on a runtime of its own, as a server making a
// runtime per chat would; the median is over the second half of the runs (the first half warms the JIT):
//   node bench/loop/fixed.mjs [file|sqlite|none] [runs] [steps]
// Prints the median wall ms and process CPU ms of a run, and setup ms (run() to the first llm_start).
// ARBOR_CORE=<dir of a built @arbor/core> measures another build; fixed-ab.mjs pairs two in one process.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [kind = "file", runsArg = "300", stepsArg = "1"] = process.argv.slice(2);
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
if (!backend) throw new Error("usage: fixed.mjs [file|sqlite|none] [runs] [steps]");
const [runs, steps] = [Number(runsArg), Number(stepsArg)];
const core = await loadCore();
const tmp = mkdtempSync(join(tmpdir(), "arbor-fixed-"));
const store = await openBackend(core, backend, tmp);
try {
  const kept = [];
  for (let i = 0; i < runs; i++) {
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    const r = await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 }, { stamps: true });
    if (i >= runs / 2) kept.push([r.ms, r.cpuMs, r.starts[0]]);
  }
  const med = (k) => kept.map((x) => x[k]).sort((a, b) => a - b)[kept.length >> 1];
  console.log(
    `${kind} ${steps}-step run: wall ${med(0).toFixed(2)} ms, cpu ${med(1).toFixed(2)} ms, setup ${med(2).toFixed(2)} ms; load ${loadavg()[0].toFixed(1)}`,
  );
} finally {
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
}
