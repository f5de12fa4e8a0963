import { cpus, loadavg } from "node:os";

/**
 * A wall-clock budget scaled by the machine's load when it is measured: the budgets are an idle
 * machine's, and when more work is queued than there are cores (other test files, other processes)
 * every wall-clock figure stretches by about that ratio, so the budget does too.
 */
export function loadScaled(ms: number): number {
  return Math.round(ms * Math.max(1, loadavg()[0]! / cpus().length));
}
