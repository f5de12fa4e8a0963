// The peak RSS of this process alone, in KB, for the sections that measure a child process's memory.
//
// `process.resourceUsage().maxRSS` is getrusage's ru_maxrss, which Linux carries across exec: a child
// spawned (forked) by a process then reports at least the parent's RSS at the fork. The bench process
// grows as sections run, so in a full `npm run bench` every cold-start child read as large as it
// (75.5 MB for `node -e 0`, against 45 MB run alone). /proc/self/status's VmHWM is the high-water
// mark of this process's own memory map, which exec replaces; maxRSS is the fallback where /proc is
// missing (it is right there when the parent is the smaller process).
import { readFileSync } from "node:fs";

export function ownPeakRssKb() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]);
  } catch {
    // No /proc: the fallback below.
  }
  return process.resourceUsage().maxRSS;
}
