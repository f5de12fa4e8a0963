// Run in a fresh process by open-snapshot.mjs: imports the library, optionally opens a store and
// takes one snapshot, and prints one JSON line with timings and peak RSS (KB).
import { ownPeakRssKb } from "../lib/peak-rss.mjs";

const job = JSON.parse(process.argv[2]);
const t0 = performance.now();
const core = await import("@arbor/core");
const t1 = performance.now();
const out = { importMs: t1 - t0 };
if (job.spec) {
  const store = await core.openStore(job.spec);
  const t2 = performance.now();
  const snap = await store.getSnapshot(job.sessionId);
  const t3 = performance.now();
  Object.assign(out, {
    openMs: t2 - t1,
    snapshotMs: t3 - t2,
    wallMs: t3 - t1,
    entries: snap.entries.length,
    pathLength: snap.activePath.length,
    contextMessages: snap.runtimeContext.messages.length,
  });
  out.maxRssKB = ownPeakRssKb();
  out.heapUsedKB = process.memoryUsage().heapUsed / 1024;
  await store.close();
} else {
  out.maxRssKB = ownPeakRssKb();
}
console.log(JSON.stringify(out));
