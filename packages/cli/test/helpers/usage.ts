import { join } from "node:path";
import { expect } from "vitest";
import type { CliResult } from "./cli.js";
import { runArborInProcess } from "./in-process.js";

/**
 * A runner of `arbor …` in this process whose home directory (HOME, and ARBOR_HOME under it, where
 * the default store would be) is `home`: the usage tests never create it, and check that.
 */
export function usageCli(home: string, env: Record<string, string> = {}): (...argv: string[]) => Promise<CliResult> {
  return (...argv) => runArborInProcess(argv, { home: join(home, ".arbor"), env: { HOME: home, ...env } });
}

/**
 * A command line refused before anything runs: exit 2, one `error:` line on stderr saying `message`,
 * and stdout empty, or a JSON error with --json.
 */
export function expectUsageError(r: CliResult, argv: readonly string[], message: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toEqual(argv.includes("--json") ? expect.stringMatching(/^\{"error":/) : "");
  expect(r.stderr).toMatch(/^error: /);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(message);
}
