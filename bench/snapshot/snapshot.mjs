// Section "snapshot": what recording a step's workspace changes costs. A 10,000-file workspace
// (100 folders × 100 files of ~200 bytes, plus a .gitignore'd build folder), then steps that each edit
// 3 files. A run reuses one step's finishing snapshot as the next one's start, so a step costs one
// snapshot (`track`) plus its patch (`patch`, the three diffs). A step whose tools named the files they
// wrote (write, edit) looks at only those (`track(paths)`); one after `bash` looks at every file, timed
// apart; a step that starts a run takes one full snapshot more. git is started by a runner child process, as
// the runtime does. CPU is per step, beside the wall time (a busy machine stretches the wall, not the CPU):
// this process's own while it takes the snapshot (what a server pays; the bench's own file edits left out)
// apart from the git side's (the runner, which also writes the objects of a tree built from named files,
// and its gits), and how many git processes a step started.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { note, num, section, table } from "../lib/format.mjs";
import { cpuMs, summarize } from "../lib/stats.mjs";

const FOLDERS = 100;
const PER_FOLDER = 100;
const TARGET_MS = 20;

/** This process's own CPU milliseconds, without its children's. */
function ownMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU milliseconds of the process `pid` and the children it reaped (10 ms ticks). */
function treeMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

export async function run(ctx) {
  const { core, tmp, quick } = ctx;
  section(
    `Snapshots: a ${FOLDERS * PER_FOLDER}-file workspace, a step editing 3 files (target: write/edit step's snapshot + patch ≤ ${TARGET_MS} ms)`,
  );
  if (!(await core.gitAvailable())) {
    note("skipped: git is not on the PATH");
    return;
  }
  const workspace = join(tmp, "snapshot-ws");
  const home = join(tmp, "snapshot-home");
  for (let d = 0; d < FOLDERS; d++) {
    mkdirSync(join(workspace, `pkg${d}`), { recursive: true });
    for (let f = 0; f < PER_FOLDER; f++) {
      writeFileSync(join(workspace, `pkg${d}`, `file${f}.ts`), `export const value${f} = ${d * PER_FOLDER + f};\n`.repeat(5));
    }
  }
  mkdirSync(join(workspace, "build"));
  writeFileSync(join(workspace, ".gitignore"), "build/\n");
  for (let i = 0; i < 500; i++) writeFileSync(join(workspace, "build", `out${i}.js`), "ignored\n");

  const runner = new core.GitRunner();
  // Every git process the snapshots start goes through the runner: counted here.
  let gits = 0;
  const run = runner.run.bind(runner);
  runner.run = (call) => {
    gits++;
    return run(call);
  };
  const snapshots = await core.openSnapshots({ home, workspace, sessionId: "bench", runner });
  // The git side: the runner and the gits it reaped, or (no runner) the gits this process reaped.
  const gitMs = () => (runner.pid ? treeMs(runner.pid) : cpuMs() - ownMs());
  let t0 = performance.now();
  let before = await snapshots.track();
  const first = performance.now() - t0;

  const steps = quick ? 10 : 30;
  const edit = (i) => {
    const paths = [];
    for (let k = 0; k < 3; k++) {
      const d = (i * 7 + k * 31) % FOLDERS;
      const path = join(workspace, `pkg${d}`, `file${(i + k) % PER_FOLDER}.ts`);
      writeFileSync(path, `// step ${i} edit ${k}\n`);
      paths.push(path);
    }
    return paths;
  };
  /** One step: `track` given the paths (or not), then the patch; wall and this process's CPU. */
  const step = async (i, named, changes) => {
    const paths = changes === 0 ? [] : edit(i);
    const own0 = ownMs();
    const t0 = performance.now();
    const after = await snapshots.track(named ? paths : undefined);
    const files = await snapshots.patch(before, after);
    const wall = performance.now() - t0;
    const own = ownMs() - own0;
    if (files.length !== changes) throw new Error(`expected ${changes} changed files, the patch lists ${files.length}`);
    before = after;
    return { wall, own };
  };
  const rows = [];
  const measure = async (label, named, fresh, offset, target, changes = 3) => {
    const wall = [];
    let own = 0;
    const git0 = gitMs();
    const gits0 = gits;
    for (let i = 0; i < steps; i++) {
      const own0 = ownMs();
      t0 = performance.now();
      // A run's first step: the workspace as the run found it, recorded in full first.
      if (fresh) before = await snapshots.track();
      const extra = performance.now() - t0;
      own += ownMs() - own0;
      const s = await step(offset + i, named, changes);
      wall.push(s.wall + extra);
      own += s.own;
    }
    const git = gitMs() - git0;
    const procs = (gits - gits0) / steps;
    const s = summarize(wall);
    const met = target === undefined ? "" : `≤ ${target} ms ${s.p50 <= target ? "met" : "MISSED"} (${num(s.p50 / target)}×)`;
    rows.push([label, num(s.p50), num(s.p99), num(s.max), num(own / steps), num(git / steps), num(procs), met]);
    return s;
  };
  const named = await measure("step after write/edit: snapshot of 3 named files + patch", true, false, 0, TARGET_MS);
  const full = await measure("step after bash: full snapshot + patch", false, false, steps, undefined);
  await measure("step after bash that changed nothing: full snapshot", false, false, 0, undefined, 0);
  await measure("run's first step: full snapshot, then named + patch", true, true, 2 * steps, undefined);
  rows.unshift(["first snapshot of the workspace", num(first), "", "", "", "", "", "once per workspace"]);
  table(["measure", "p50 ms", "p99 ms", "max ms", "own cpu ms/step", "git cpu ms/step", "gits/step", "target"], rows);
  note(
    `named files vs full look: ${num(full.p50 / named.p50)}× faster at p50; a step whose tools changed no file takes no snapshot`,
  );
  await runner.close();
}
