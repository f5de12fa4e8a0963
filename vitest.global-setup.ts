import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * Some tests spawn the built library or CLI as a child process (kill -9 recovery, CLI end to end),
 * so the build must match the source under test. `tsc -b` is incremental: quick when nothing changed.
 */
export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-b", "packages/core", "packages/cli"], {
    cwd: fileURLToPath(new URL(".", import.meta.url)),
    stdio: "inherit",
  });
}
