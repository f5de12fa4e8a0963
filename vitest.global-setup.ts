import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * Some tests spawn the built library or CLI as a child process (kill -9 recovery, CLI end to end),
 * so the build must match the source under test. `tsc -b` is incremental: quick when nothing changed.
 */
export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  // ARBOR_TEST_BUILD narrows the build (e.g. "packages/core") while another package is mid-edit.
  const projects = process.env.ARBOR_TEST_BUILD?.split(/\s+/).filter(Boolean) ?? [
    "packages/core",
    "packages/server",
    "packages/cli",
  ];
  execFileSync(process.execPath, [tsc, "-b", ...projects], {
    cwd: fileURLToPath(new URL(".", import.meta.url)),
    stdio: "inherit",
  });
}
