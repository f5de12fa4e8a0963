// Loaded with `node --import` into each process the "cold" section starts. It writes, as JSON to
// $ARBOR_BENCH_PROBE, the process's CPU time and its own peak RSS (see peak-rss.mjs): at its first outgoing fetch (the first model
// request of `arbor run`) when $ARBOR_BENCH_PROBE_AT is "fetch", else at exit. `at` is the epoch time
// in ms of that moment, for the wall time from the parent's spawn.
import { writeFileSync } from "node:fs";
import { atFirstFetchOrExit } from "../../packages/cli/test/helpers/first-fetch.mjs";
import { ownPeakRssKb } from "../lib/peak-rss.mjs";

const out = process.env.ARBOR_BENCH_PROBE;
function record() {
  const u = process.resourceUsage();
  const at = performance.timeOrigin + performance.now();
  writeFileSync(out, JSON.stringify({ at, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: ownPeakRssKb() }));
}
atFirstFetchOrExit(process.env.ARBOR_BENCH_PROBE_AT, record);
