// Figure 2: open a store and take a snapshot of a 10k / 100k-entry session in a fresh process.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { count, mb, note, num, ratio, reason, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";
import { BIG_MESSAGE_BYTES } from "./fixtures.mjs";

const CHILD = fileURLToPath(new URL("./open-snapshot-child.mjs", import.meta.url));
const TARGET_WALL_MS = 2000; // for 100k entries
const TARGET_RSS_RATIO = 3;

function child(job) {
  const r = spawnSync(process.execPath, [CHILD, JSON.stringify(job)], { encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) {
    const err = (r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`).trim().split("\n");
    throw new Error(err.find((l) => /Error|error/.test(l)) ?? err[0]);
  }
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

/** Median of `runs` child runs, field by field. */
function childMedian(job, runs) {
  const results = Array.from({ length: runs }, () => child(job));
  const out = { ...results[0] };
  for (const k of Object.keys(out)) if (typeof out[k] === "number") out[k] = median(results.map((r) => r[k]));
  return out;
}

export async function run({ fixtures, quick }) {
  section(`2. Open + getSnapshot in a fresh process (~${(BIG_MESSAGE_BYTES / 1000).toFixed(1)} KB messages, linear path)`);
  const runs = quick ? 1 : 3;
  const sizes = quick ? [10_000] : [10_000, 100_000];
  const base = childMedian({}, runs);
  const baseKB = base.maxRssKB;
  const buildRows = [];
  const timeRows = [];
  const memRows = [];
  const notes = [];
  for (const kind of ["file", "sqlite"]) {
    for (const n of sizes) {
      let fx;
      try {
        fx = await fixtures.get(kind, n);
        buildRows.push([kind, count(n), mb(fx.dataBytes), num(fx.buildMs / 1000), num(n / (fx.buildMs / 1000))]);
      } catch (err) {
        notes.push(`${kind} ${count(n)}: skipped, cannot build the session — ${reason(err)}`);
        continue;
      }
      try {
        const r = childMedian({ spec: fx.spec, sessionId: fx.sessionId }, runs);
        if (r.entries !== n || r.pathLength !== n)
          notes.push(`${kind} ${count(n)}: snapshot has ${r.entries} entries, path ${r.pathLength}`);
        const rssBytes = r.maxRssKB * 1024;
        const netBytes = (r.maxRssKB - baseKB) * 1024;
        timeRows.push([
          kind,
          count(n),
          mb(fx.dataBytes),
          num(r.openMs),
          num(r.snapshotMs),
          num(r.wallMs),
          n === 100_000 ? `≤ ${TARGET_WALL_MS}` : "",
          n === 100_000 ? ratio(r.wallMs / TARGET_WALL_MS) : "",
        ]);
        memRows.push([
          kind,
          count(n),
          mb(fx.dataBytes),
          mb(rssBytes),
          ratio(rssBytes / fx.dataBytes),
          ratio(netBytes / fx.dataBytes),
          `≤ ${TARGET_RSS_RATIO}×`,
          mb(r.heapUsedKB * 1024),
          ratio((r.heapUsedKB * 1024) / fx.dataBytes),
        ]);
      } catch (err) {
        notes.push(`${kind} ${count(n)}: failed — ${reason(err)}`);
      }
    }
  }
  console.log(
    `  Time (median of ${runs} fresh process${runs > 1 ? "es" : ""}; wall = openStore + getSnapshot, import excluded):`,
  );
  table(["<backend", "entries", "data size", "open ms", "snapshot ms", "wall ms", "<target", "vs target"], timeRows);
  console.log("\n  Memory (peak RSS = the child's own high-water mark, VmHWM; see bench/lib/peak-rss.mjs):");
  table(
    ["<backend", "entries", "data size", "peak RSS", "RSS/size", "net RSS/size", "<target", "heap used", "heap/size"],
    memRows,
  );
  note("data size: entries.jsonl (file) or the database file (sqlite).");
  note(
    `net RSS = peak RSS minus a child that only imports @arbor/core: ${mb(baseKB * 1024)} (import took ${num(base.importMs)} ms).`,
  );
  note("heap used: V8 heap in use right after getSnapshot (live data plus garbage not yet collected).");
  note("Page cache is warm (the session was just written), so this measures parsing, not the disk.");
  console.log("\n  Building the sessions (appendEntries in batches of 1000, durability process):");
  table(["<backend", "entries", "data size", "build s", "entries/s"], buildRows);
  for (const n of notes) note(n);
}
