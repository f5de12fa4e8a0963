// When the JIT is done with the loop: runs the tool loop `runs` times (a runtime of its own each, as in the
// loop section) in a child under `--trace-opt --trace-deopt`, and prints per group of runs how many
// functions TurboFan finished optimizing, the compile jobs' time off the main thread, and the deopts by
// reason. Optimizations that go on forever would mean hot code specialized on one run's objects and
// thrown away with them; ones that stop mean the first tier-up is still under way at that warm-up:
//   node bench/loop/tierup.mjs [file|sqlite|none] [runs] [group] [steps]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [kind = "none", runsArg = "80", groupArg = "10", stepsArg = "201"] = process.argv.slice(2);
const [runs, group, steps] = [Number(runsArg), Number(groupArg), Number(stepsArg)];

if (process.env.ARBOR_TIERUP_CHILD) {
  const core = await loadCore();
  const tmp = mkdtempSync(join(tmpdir(), "arbor-tierup-"));
  const store = await openBackend(
    core,
    LOOP_BACKENDS.find((b) => b.label.startsWith(kind)),
    tmp,
  );
  for (let i = 0; i < runs; i++) {
    console.log(`=== run ${i}`);
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 });
  }
  // Closing the store deoptimizes code that relied on its fields never changing: not the runs' cost.
  console.log("=== end");
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
} else {
  const child = spawn(
    process.execPath,
    ["--trace-opt", "--trace-deopt", fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      env: { ...process.env, ARBOR_TIERUP_CHILD: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const groups = [];
  let run = -1;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith("=== run ")) run = Number(line.slice(8));
    else if (line === "=== end") run = -1;
    if (run < 0) continue;
    const at = Math.floor(run / group);
    groups[at] ??= { opt: 0, compileMs: 0, deopts: {} };
    const g = groups[at];
    if (line.startsWith("[completed optimizing")) g.opt++;
    // "took a, b, c ms": b is the job's phase on a background thread.
    const took = /^\[completed compiling .* took [\d.]+, ([\d.]+), [\d.]+ ms/.exec(line);
    if (took) g.compileMs += Number(took[1]);
    const deopt = /^\[(?:bailout \(kind: [\w-]+, reason: ([^)]+)\)|marking dependent code .* reason: (.+)\])/.exec(line);
    if (deopt) {
      const reason = deopt[1] ?? deopt[2];
      g.deopts[reason] = (g.deopts[reason] ?? 0) + 1;
    }
  }
  groups.forEach((g, i) => {
    const reasons = Object.entries(g.deopts).map(([r, n]) => `${n} ${r}`);
    console.log(
      `${kind} runs ${i * group}-${i * group + group - 1}: ${g.opt} optimized, background compile ${g.compileMs.toFixed(0)} ms wall; deopts: ${reasons.join(", ") || "none"}`,
    );
  });
}
