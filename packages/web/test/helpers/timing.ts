import { cpus, loadavg } from "node:os";
import type { Page } from "playwright-core";

/** Milliseconds from the start of `action` (run in the page) until the frame after the DOM reflects it. */
export async function timed(page: Page, action: string, done: string): Promise<number> {
  // Strings, not functions: the tests are typechecked without the DOM library.
  return page.evaluate(`(async () => {
    const t0 = performance.now();
    ${action};
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    while (!(${done})) await frame();
    await frame();
    return performance.now() - t0;
  })()`);
}

export function summary(times: number[]): { median: number; p90: number; max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number);
  return { median: at(0.5), p90: at(0.9), max: Math.round(sorted.at(-1) as number) };
}

/**
 * The budgets are an idle machine's; when more work is queued than there are cores (other test
 * files, other processes), every wall-clock figure stretches by about that ratio, so they do too.
 * The load is read when a budget is asked for, after the figures it judges were taken, as well as
 * when the file was loaded: a one-minute average lags, and the higher of the two is the fairer.
 */
const AT_LOAD = loadavg()[0]!;
export const loadFactor = () => Math.max(1, Math.max(AT_LOAD, loadavg()[0]!) / cpus().length);
export const budget = (ms: number) => Math.round(ms * loadFactor());

/** One line for the test's log: the factor its budgets were stretched by, and the load behind it. */
export function budgetNote(tag: string): string {
  return `[${tag}] budgets ×${loadFactor().toFixed(2)} (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`;
}
