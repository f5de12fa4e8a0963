// Timing and percentiles.
import { readFileSync } from "node:fs";

export const now = () => process.hrtime.bigint();
/** Nanoseconds between two `now()` readings, as microseconds. */
export const us = (t0, t1) => Number(t1 - t0) / 1000;

/** Nearest-rank percentile of an unsorted sample (p in 0..100). */
export function percentile(sample, p) {
  if (sample.length === 0) return Number.NaN;
  const s = Float64Array.from(sample).sort();
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export function summarize(sample) {
  return { n: sample.length, p50: percentile(sample, 50), p99: percentile(sample, 99), max: percentile(sample, 100) };
}

export function median(sample) {
  return percentile(sample, 50);
}

/**
 * CPU milliseconds spent so far by this process and the child processes it has reaped (git, say):
 * beside a wall time it tells a slow step from a busy machine. Linux reads both from /proc (10 ms
 * ticks, so average over many steps); elsewhere only this process's own time.
 */
export function cpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const tick = 1000 / 100;
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * tick;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}
