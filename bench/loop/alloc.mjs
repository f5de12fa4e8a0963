// Where a run's allocations come from: a sampling heap profile that keeps objects the GC already
// collected (the loop's garbage is what costs), after warm-up runs:
//   node bench/loop/alloc.mjs [file|sqlite|none] [runs] [steps]
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const core = await loadCore();
const [kind = "file", runsArg = "10", stepsArg = "201"] = process.argv.slice(2);
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith(kind));
const tmp = mkdtempSync(join(tmpdir(), "arbor-alloc-"));
const steps = Number(stepsArg);
const store = await openBackend(core, backend, tmp);
const once = async () => {
  const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
  await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 });
};
try {
  for (let i = 0; i < 10; i++) await once();
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < Number(runsArg); i++) await once();
  const { profile } = await session.post("HeapProfiler.stopSampling");
  const self = new Map();
  const total = new Map();
  let all = 0;
  const walk = (node, stack) => {
    const f = node.callFrame;
    const name = `${f.functionName || "(anon)"} ${f.url.replace(/.*\/(packages|node_modules)\//, "")}:${f.lineNumber + 1}`;
    const size = node.selfSize;
    all += size;
    self.set(name, (self.get(name) ?? 0) + size);
    const seen = new Set(stack);
    if (!seen.has(name)) stack = [...stack, name];
    let sub = size;
    for (const c of node.children) sub += walk(c, stack);
    if (!seen.has(name)) total.set(name, (total.get(name) ?? 0) + sub);
    return sub;
  };
  walk(profile.head, []);
  const perStep = (b) => `${(b / Number(runsArg) / steps / 1024).toFixed(1)} KB/step`;
  console.log(`allocated ${perStep(all)}`);
  console.log("-- self");
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(perStep(v).padStart(14), k);
  console.log("-- total (inclusive)");
  for (const [k, v] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(perStep(v).padStart(14), k);
} finally {
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
}
