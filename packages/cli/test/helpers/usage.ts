import { expect } from "vitest";
import { run } from "../../src/cli.js";
import { type CapturedIo, captureIo } from "./io.js";

export interface InProcessResult {
  code: number;
  out: string;
  err: string;
}

/** A runner of `arbor …` in this process, each run with a fresh Io made by `io`. */
export function inProcessCli(io: () => CapturedIo = () => captureIo()): (...argv: string[]) => Promise<InProcessResult> {
  return async (...argv) => {
    const captured = io();
    const code = await run(argv, captured);
    return { code, out: captured.out(), err: captured.err() };
  };
}

/**
 * A command line refused before anything runs: exit 2, one `error:` line on stderr saying `message`,
 * and stdout empty, or a JSON error with --json.
 */
export function expectUsageError(r: InProcessResult, argv: readonly string[], message: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.out).toEqual(argv.includes("--json") ? expect.stringMatching(/^\{"error":/) : "");
  expect(r.err).toMatch(/^error: /);
  expect(r.err.trimEnd().split("\n")).toHaveLength(1);
  expect(r.err).toMatch(message);
}
