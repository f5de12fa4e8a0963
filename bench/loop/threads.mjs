// CPU of the loop's own thread against the process's other threads (V8's TurboFan compile jobs, the
// parallel scavenger, concurrent marking; libuv's pool for the file store's fsyncs), per step, after a
// given number of warm-up runs. Each run is a runtime of its own over one store, as in the loop section:
//   node bench/loop/threads.mjs [file|sqlite|none] [warm-ups] [measured runs] [steps]
// Per-thread times come from /proc (Linux only), in clock ticks of 10 ms: measure enough runs for the
// figure to be many ticks. The other threads' share falls as warm-ups grow while TurboFan is still making
// its first optimized code (tierup.mjs shows when that ends), so compare figures at equal warm-ups.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

/** User + system CPU ms of each thread of this process, by thread id (fields 14 and 15 of its stat). */
function threadTimes() {
  const out = {};
  for (const t of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${t}/stat`, "utf8");
    // The name field may hold spaces and parentheses: fields are counted from after its closing one.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out[t] = (Number(f[11]) + Number(f[12])) * 10;
  }
  return out;
}

const [kind = "file", warmArg = "10", measuredArg = "20", stepsArg = "201"] = process.argv.slice(2);
const [warm, measured, steps] = [Number(warmArg), Number(measuredArg), Number(stepsArg)];
const core = await loadCore();
const tmp = mkdtempSync(join(tmpdir(), "arbor-threads-"));
try {
  const store = await openBackend(
    core,
    LOOP_BACKENDS.find((b) => b.label.startsWith(kind)),
    tmp,
  );
  let t0 = threadTimes();
  for (let i = 0; i < warm + measured; i++) {
    if (i === warm) t0 = threadTimes();
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 });
  }
  const t1 = threadTimes();
  await store.close();
  const main = String(process.pid);
  let others = 0;
  // A thread that ended between the two readings is lost; one that began counts from zero.
  for (const k in t1) if (k !== main) others += t1[k] - (t0[k] ?? 0);
  const perStep = (ms) => ((1000 * ms) / (steps * measured)).toFixed(0);
  console.log(
    `${kind} warm-ups ${warm}: main thread ${perStep(t1[main] - t0[main])} µs/step, other threads ${perStep(others)} µs/step; load ${loadavg()[0].toFixed(1)}`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
