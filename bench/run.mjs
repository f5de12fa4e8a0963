// `npm run bench`: store and loop benchmark against the built @arbor/core. Prints figures, not pass/fail.
// Options: --only=append,open-snapshot,context,disk,loop,stream,cache,prompt-cache,explore,compaction,server,density,resume,goals,snapshot,knowledge,cluster,sandbox,cold
//          --quick (smaller sizes, for iterating)   --save-baseline[=note] (keep this run's figures in bench/baseline.json)
import { Baseline } from "./lib/baseline.mjs";
import { git, headerLines, loadavg, tempDir } from "./lib/env.mjs";
import { reason } from "./lib/format.mjs";
import { Fixtures } from "./store/fixtures.mjs";

/** Section name → module (relative to this file) exporting `run(ctx)`, in the order they run. */
const MODULES = {
  append: "./store/append.mjs",
  "open-snapshot": "./store/open-snapshot.mjs",
  context: "./store/context.mjs",
  disk: "./store/disk.mjs",
  loop: "./loop/loop.mjs",
  stream: "./loop/stream.mjs",
  cache: "./llm/cache.mjs",
  "prompt-cache": "./llm/prompt-cache.mjs",
  explore: "./loop/explore.mjs",
  resume: "./store/resume.mjs",
  compaction: "./context/compaction.mjs",
  goals: "./context/goal-compaction.mjs",
  server: "./server/server.mjs",
  density: "./server/density.mjs",
  snapshot: "./snapshot/snapshot.mjs",
  knowledge: "./knowledge/knowledge.mjs",
  cluster: "./cluster/cluster.mjs",
  sandbox: "./sandbox/sandbox.mjs",
  cold: "./cold/cold.mjs",
};
const SECTIONS = Object.keys(MODULES);
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const saveArg = args.find((a) => a === "--save-baseline" || a.startsWith("--save-baseline="));
const only = onlyArg ? onlyArg.slice("--only=".length).split(",") : SECTIONS;
const unknown = only.filter((s) => !SECTIONS.includes(s));
if (unknown.length) {
  console.error(`unknown section(s) ${unknown.join(", ")}; choose from ${SECTIONS.join(", ")}`);
  process.exit(2);
}

// The benchmarks time building blocks (context cuts, token counting, the cache) as well as whole runs.
let core;
try {
  core = await Promise.all([
    import("@arbor/core"),
    import("@arbor/core/context"),
    import("@arbor/core/llm"),
    import("@arbor/core/session"),
    import("@arbor/core/store"),
    import("@arbor/core/tools"),
  ]).then((parts) => Object.assign({}, ...parts));
} catch (err) {
  console.error(`Cannot import @arbor/core (${reason(err)}). Run npm run build first.`);
  process.exit(1);
}

console.log(`Arbor benchmark${quick ? " (--quick)" : ""}`);
for (const line of headerLines()) console.log(line);
const baseline = new Baseline();
console.log(`baseline  ${baseline.describe()}; "vs before" = this run ÷ baseline, + better, - worse`);

const tmp = tempDir();
let interrupted = false;
process.on("SIGINT", () => {
  interrupted = true;
  tmp.remove();
  process.exit(130);
});

const started = performance.now();
const ctx = { core, tmp: tmp.dir, quick, baseline, fixtures: new Fixtures(core, tmp.dir) };
try {
  for (const name of only) {
    const t0 = performance.now();
    try {
      const mod = await import(MODULES[name]);
      await mod.run(ctx);
    } catch (err) {
      console.log(`\n  ${name}: FAILED — ${reason(err)}`);
      if (err?.stack)
        console.log(
          err.stack
            .split("\n")
            .slice(1, 4)
            .map((l) => `    ${l.trim()}`)
            .join("\n"),
        );
    }
    console.log(`  (${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
} finally {
  if (!interrupted) tmp.remove();
}
if (saveArg) {
  if (quick) console.log("\nnot saving a --quick run as the baseline");
  else {
    const note = saveArg.includes("=") ? saveArg.slice(saveArg.indexOf("=") + 1) : undefined;
    baseline.save({
      recorded: new Date().toISOString(),
      commit: git(["rev-parse", "--short", "HEAD"]),
      ...(note ? { note } : {}),
    });
    console.log("\nbaseline saved to bench/baseline.json");
  }
}
console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s; load ${loadavg()}`);
// Server pools a store left open must not keep the process alive.
process.exit(0);
