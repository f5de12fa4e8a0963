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

/**
 * CPU milliseconds the main thread has run so far, to the nanosecond (Linux's scheduler statistics for
 * the thread): beside the process's CPU it separates the program's own work from the JIT's compiler
 * threads and the collector's helpers. `getrusage` for one thread counts in scheduler ticks (4 ms
 * here), too coarse for a run of 50 ms. NaN where /proc is not there.
 */
export function mainThreadCpuMs() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * Starts a clock for one measured run; the function it returns gives the wall ms since, and the CPU ms
 * of the whole process and of its main thread over the same span (see `mainThreadCpuMs`).
 */
export function runClock() {
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs();
  const t0 = performance.now();
  return () => {
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, mainCpuMs: mainThreadCpuMs() - main0 };
  };
}

/** The median µs between successive moments (ms), as a run's step starts: a typical step. */
export function medianGapUs(stamps) {
  const gaps = [];
  for (let i = 1; i < stamps.length; i++) gaps.push((stamps[i] - stamps[i - 1]) * 1000);
  return median(gaps);
}
