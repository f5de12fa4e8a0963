// Section "snapshot": what recording a step's workspace changes costs. A 10,000-file workspace
// (100 folders × 100 files of ~200 bytes, plus a .gitignore'd build folder), then steps that each edit
// 3 files. A run reuses one step's finishing snapshot as the next one's start, so a step costs one
// snapshot (`track`) plus its patch (`patch`, the three diffs); a step that starts a run takes one more
// snapshot, timed too. The first snapshot of a workspace (every file read and stored once) is shown apart.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { note, num, section, table } from "../lib/format.mjs";
import { summarize } from "../lib/stats.mjs";

const FOLDERS = 100;
const PER_FOLDER = 100;
const TARGET_MS = 50;

export async function run(ctx) {
  const { core, tmp, quick } = ctx;
  section(
    `Snapshots: a ${FOLDERS * PER_FOLDER}-file workspace, a step editing 3 files (target: snapshot + patch ≤ ${TARGET_MS} ms)`,
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

  const snapshots = await core.openSnapshots({ home, workspace, sessionId: "bench" });
  let t0 = performance.now();
  let before = await snapshots.track();
  const first = performance.now() - t0;

  const steps = quick ? 10 : 30;
  const step = [];
  const fresh = [];
  for (let i = 0; i < steps; i++) {
    for (let k = 0; k < 3; k++) {
      const d = (i * 7 + k * 31) % FOLDERS;
      writeFileSync(join(workspace, `pkg${d}`, `file${(i + k) % PER_FOLDER}.ts`), `// step ${i} edit ${k}\n`);
    }
    t0 = performance.now();
    const after = await snapshots.track();
    const files = await snapshots.patch(before, after);
    step.push(performance.now() - t0);
    if (files.length !== 3) throw new Error(`expected 3 changed files, the patch lists ${files.length}`);
    t0 = performance.now();
    await snapshots.track();
    fresh.push(performance.now() - t0 + step.at(-1));
    before = after;
  }
  const s = summarize(step);
  const f = summarize(fresh);
  table(
    ["measure", "p50 ms", "p99 ms", "max ms", "target"],
    [
      ["first snapshot of the workspace", num(first), "", "", "once per workspace"],
      [
        "step: snapshot + patch (3 files)",
        num(s.p50),
        num(s.p99),
        num(s.max),
        `≤ ${TARGET_MS} ms ${s.p50 <= TARGET_MS ? "met" : "MISSED"}`,
      ],
      ["run's first step: 2 snapshots + patch", num(f.p50), num(f.p99), num(f.max), ""],
    ],
  );
}
