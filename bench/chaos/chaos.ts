import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_TAKEOVER_MS } from "../../packages/cli/src/commands/serve-defaults.js";
import { percentile } from "../../packages/cli/test/helpers/cluster.js";
import { unpairedCalls } from "../../packages/cli/test/helpers/fault.js";
import { KINDS, type TrialRecord, VIOLATIONS } from "./record.js";
import { drawnKind, runTrial } from "./trial.js";
import { World } from "./world.js";

/**
 * `npm run chaos`: seeded faults against real processes (see bench/README.md, "Chaos"), then the
 * figures. Not a test: it prints what it found and exits 0; `--self-check` plants faults and exits
 * 1 if the checker misses one.
 */

const HELP = `npm run chaos -- [--trials N] [--seed S] [--trial N] [--concurrency N] [--takeover-ms MS] [--bound-ms MS] [--self-check]
  --trials N        trials to run (default 100)
  --seed S          the seed (default: drawn and printed)
  --trial N         run only trial N of seed S (replays one failure)
  --concurrency N   trials in flight at once over the same three instances (default 3)
  --takeover-ms MS  the instances' --takeover-ms (default: arbor serve's own, 5000)
  --bound-ms MS     a run that has not ended this long after its start is stuck (default 60000)
  --plant KIND      plant a fault the checker must catch: drop-event, double-effect, hang
  --kinds K,K       run only the trials (of the seed's first N) whose fault is one of these kinds
  --minutes M       start no trial after M minutes; the trials in flight finish and the report covers the trials run
  --self-check      plant each fault in a few trials and exit 1 if a plant goes uncounted`;

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "100" },
    seed: { type: "string" },
    trial: { type: "string" },
    concurrency: { type: "string", default: "3" },
    "takeover-ms": { type: "string", default: String(DEFAULT_TAKEOVER_MS) },
    "bound-ms": { type: "string", default: "60000" },
    minutes: { type: "string" },
    kinds: { type: "string" },
    plant: { type: "string" },
    "self-check": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

const PLANTS = { "drop-event": "lost", "double-effect": "effectTwice", hang: "stuck" } as const;
type Plant = keyof typeof PLANTS;

interface Config {
  seed: number;
  trials: number[];
  concurrency: number;
  takeoverMs: number;
  boundMs: number;
  plant?: Plant;
  /** Off in the self-check, so what it counts comes from the plant alone. */
  faults: boolean;
  /** performance.now() after which no trial starts. */
  until: number;
}

/** Children's CPU seconds the kernel has accounted to this process (those that exited and were waited for). */
function childCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** The trials' records, and the trials the checker itself could not carry out (never counted as violations). */
interface Outcome {
  records: TrialRecord[];
  harnessErrors: string[];
}

async function check(config: Config): Promise<Outcome> {
  const world = await World.create(
    { takeoverMs: config.takeoverMs, doubleEffect: config.plant === "double-effect", hang: config.plant === "hang" },
    Math.max(...config.trials) + 1,
  );
  const records: TrialRecord[] = [];
  const harnessErrors: string[] = [];
  try {
    const queue = [...config.trials];
    const worker = async () => {
      for (let t = queue.shift(); t !== undefined && performance.now() < config.until; t = queue.shift()) {
        let rec: TrialRecord;
        try {
          rec = await runTrial(world, config.seed, t, {
            boundMs: config.plant === "hang" ? Math.min(config.boundMs, 8_000) : config.boundMs,
            dropEvent: config.plant === "drop-event",
            faults: config.faults,
          });
        } catch (err) {
          // The harness could not carry the trial out (PostgreSQL refused a connection, say): no verdict on Arbor.
          harnessErrors.push(`trial ${t}: ${err instanceof Error ? err.message : String(err)}`);
          process.stderr.write(`  trial ${t}: the checker could not run it: ${harnessErrors.at(-1)}\n`);
          continue;
        }
        records.push(rec);
        const bad = VIOLATIONS.filter((k) => rec.violations[k] > 0);
        if (config.trials.length === 1)
          process.stderr.write(
            `  phases (ms): ${JSON.stringify(rec.phases, (_, x) => (typeof x === "number" ? Math.round(x) : x))}; ${rec.notes.join("; ")}\n`,
          );
        // A recovery slower than the takeover bound is the tail the p99 is made of: say where its time went.
        if (rec.recoveryMs !== undefined && rec.recoveryMs > 10_000)
          process.stderr.write(
            `  trial ${rec.trial} (${rec.kind}) recovered after ${(rec.recoveryMs / 1000).toFixed(1)} s; phases (ms): ${JSON.stringify(rec.phases, (_, x) => (typeof x === "number" ? Math.round(x) : x))}; ${rec.notes.join("; ")}\n`,
          );
        if (bad.length > 0 || records.length % 10 === 0)
          process.stderr.write(
            `  trial ${rec.trial} (${rec.kind}${rec.ask ? ", ask" : ""}) ${(rec.ms / 1000).toFixed(1)} s${bad.length ? `: ${bad.map((k) => `${k} ${rec.violations[k]}`).join(", ")} (${rec.notes.join("; ")})` : ""} [${records.length}/${config.trials.length}]\n`,
          );
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.concurrency, config.trials.length) }, worker));
    // Tool calls without exactly one result in any request the provider got for a trial's session.
    for (const body of world.rig.chatRequests()) {
      const tag = /job (t\d+)/.exec(JSON.stringify(body))?.[1];
      const rec = records.find((r) => r.tag === tag);
      const n = unpairedCalls(body);
      if (rec && n > 0) {
        rec.violations.unpaired += n;
        rec.notes.push(`a provider request held ${n} tool calls without exactly one result`);
      }
    }
    const takeovers = world.everyInstance.flatMap((i) => i.lines).filter((l) => l.line.includes("took over the run of session"));
    process.stderr.write(`  ${takeovers.length} takeovers logged by the instances\n`);
    harnessErrors.push(...world.crashes.map((c) => `instance ${c}`));
  } finally {
    await world.close();
  }
  return { records: records.sort((a, b) => a.trial - b.trial), harnessErrors };
}

function report(
  config: Config,
  { records, harnessErrors }: Outcome,
  wallMs: number,
  cpu: { self: number; children: number },
): void {
  const n = records.length;
  const counts = Object.fromEntries(VIOLATIONS.map((k) => [k, records.reduce((s, r) => s + r.violations[k], 0)]));
  const failing = records.filter((r) => VIOLATIONS.some((k) => r.violations[k] > 0));
  console.log(
    `\nArbor chaos: seed ${config.seed}, ${n} trials${n < config.trials.length ? ` of ${config.trials.length} (the time budget ran out)` : ""}, ${config.concurrency} at once, --takeover-ms ${config.takeoverMs}, bound ${config.boundMs} ms${config.plant ? `, planted fault ${config.plant}` : ""}`,
  );
  const byKind = KINDS.map((k) => {
    const of = records.filter((r) => r.kind === k);
    return `${k} ${of.length} (${of.filter((r) => r.missed).length} after the end)`;
  });
  console.log(`faults: ${byKind.join(", ")}; ${records.filter((r) => r.ask).length} with a permission ask`);
  console.log("\n  violation      count  trials");
  for (const k of VIOLATIONS)
    console.log(
      `  ${k.padEnd(13)} ${String(counts[k]).padStart(6)}  ${String(records.filter((r) => r.violations[k] > 0).length).padStart(6)}`,
    );
  const line = (label: string, xs: number[]) =>
    console.log(
      `  ${label.padEnd(44)} n ${String(xs.length).padStart(4)}  p50 ${percentile(xs, 50).toFixed(0).padStart(6)}  p99 ${percentile(xs, 99).toFixed(0).padStart(6)}  max ${percentile(xs, 100).toFixed(0).padStart(6)}`,
    );
  console.log("\n  after the fault, to the run's next event (ms)");
  const labels: Array<[TrialRecord["kind"], string]> = [
    ["instance", "takeover: kill -9 of the driving instance"],
    ["run", "kill -9 of arbor run (PostgreSQL), to the resume"],
    ["run-file", "kill -9 of arbor run (file), to the resume"],
    ["run-sqlite", "kill -9 of arbor run (SQLite), to the resume"],
    ["backend", "driver's backends terminated"],
    ["netcut", "driver cut from the database"],
  ];
  for (const [kind, label] of labels)
    line(
      label,
      records.flatMap((r) => (r.kind === kind && r.recoveryMs !== undefined ? [r.recoveryMs] : [])),
    );
  const perTrial = records.map((r) => r.ms);
  console.log(
    `\n  wall ${(wallMs / 1000).toFixed(1)} s (${(wallMs / 1000 / Math.max(1, n)).toFixed(2)} s a trial with ${config.concurrency} at once; one trial alone p50 ${(percentile(perTrial, 50) / 1000).toFixed(1)} s, p99 ${(percentile(perTrial, 99) / 1000).toFixed(1)} s)`,
  );
  const phase = (k: string) =>
    (
      percentile(
        records.flatMap((r) => (r.phases[k] === undefined ? [] : [r.phases[k]])),
        50,
      ) / 1000
    ).toFixed(1);
  console.log(
    `  a trial's phases, p50 from its start (s): job started ${phase("started")}, fault ${phase("fault")}, run ended ${phase("watched")}, follow-up answered ${phase("usable")}`,
  );
  console.log(
    `  CPU ${(cpu.self + cpu.children).toFixed(1)} s: checker and fake provider ${cpu.self.toFixed(1)} s, arbor processes ${cpu.children.toFixed(1)} s (PostgreSQL's own not counted)`,
  );
  if (harnessErrors.length > 0) {
    console.log(
      `\n  ${harnessErrors.length} trials the checker could not carry out, and instances that exited by themselves (not counted above):`,
    );
    for (const e of harnessErrors) console.log(`  - ${e.slice(0, 300)}`);
  }
  if (failing.length > 0) {
    console.log(`\n  ${failing.length} failing trials (replay one with npm run chaos -- --seed ${config.seed} --trial N):`);
    for (const r of failing) {
      const kinds = VIOLATIONS.filter((k) => r.violations[k] > 0).map((k) => `${k} ${r.violations[k]}`);
      console.log(`  - trial ${r.trial} (${r.kind}${r.ask ? ", ask" : ""}, session ${r.sessionId}): ${kinds.join(", ")}`);
      for (const note of r.notes) console.log(`      ${note.slice(0, 400)}`);
    }
  }
}

async function main(): Promise<number> {
  const seed = Number(values.seed ?? Math.floor(Math.random() * 2 ** 31));
  const base = {
    seed,
    concurrency: Math.max(1, Number(values.concurrency)),
    takeoverMs: Number(values["takeover-ms"]),
    boundMs: Number(values["bound-ms"]),
    // A time budget: no trial starts after it (the report says how many ran).
    until: values.minutes === undefined ? Number.POSITIVE_INFINITY : performance.now() + Number(values.minutes) * 60_000,
  };
  if (values["self-check"]) {
    // The control: no fault and no plant must count nothing; each plant must count its violation.
    const control = (await check({ ...base, trials: [0, 1, 2, 3], faults: false })).records;
    const falseAlarms = control.reduce((s, r) => s + VIOLATIONS.reduce((n, k) => n + r.violations[k], 0), 0);
    console.log(
      `self-check: no fault, nothing planted: ${falseAlarms} violations in ${control.length} trials${falseAlarms === 0 ? "" : " — FALSE ALARM"}`,
    );
    let missed = falseAlarms > 0 ? 1 : 0;
    for (const [plant, violation] of Object.entries(PLANTS) as Array<[Plant, (typeof PLANTS)[Plant]]>) {
      const { records } = await check({ ...base, trials: [0, 1, 2, 3], plant, faults: false });
      const caught = records.reduce((s, r) => s + r.violations[violation], 0);
      console.log(
        `self-check: planted ${plant}, counted ${caught} ${violation} in ${records.length} trials${caught > 0 ? "" : " — MISSED"}`,
      );
      if (caught === 0) missed++;
    }
    return missed > 0 ? 1 : 0;
  }
  const kinds = values.kinds?.split(",").map((k) => k.trim());
  const unknown = kinds?.filter((k) => !(KINDS as readonly string[]).includes(k)) ?? [];
  if (unknown.length > 0) {
    console.error(`unknown --kinds ${unknown.join(", ")}; choose from ${KINDS.join(", ")}`);
    return 2;
  }
  const trials = (
    values.trial !== undefined ? [Number(values.trial)] : Array.from({ length: Number(values.trials) }, (_, i) => i)
  ).filter((t) => kinds === undefined || kinds.includes(drawnKind(seed, t)));
  const plant = values.plant as Plant | undefined;
  if (plant !== undefined && !(plant in PLANTS)) {
    console.error(`unknown --plant ${plant}; choose from ${Object.keys(PLANTS).join(", ")}`);
    return 2;
  }
  const config: Config = { ...base, trials, faults: true, ...(plant ? { plant } : {}) };
  console.log(`Arbor chaos: seed ${seed}, ${trials.length} trials (replay: npm run chaos -- --seed ${seed} --trial N)`);
  const t0 = performance.now();
  const cpu0 = { self: process.cpuUsage(), children: childCpuSeconds() };
  const outcome = await check(config);
  const self = process.cpuUsage(cpu0.self);
  report(config, outcome, performance.now() - t0, {
    self: (self.user + self.system) / 1e6,
    children: childCpuSeconds() - cpu0.children,
  });
  return 0;
}

process.exitCode = await main();
