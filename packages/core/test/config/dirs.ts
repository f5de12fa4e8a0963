import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A fresh Arbor home and workspace for each test of the file, removed after it: where config files are looked for. */
export function useConfigDirs(): { readonly home: string; readonly cwd: string } {
  let home = "";
  let cwd = "";
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "arbor-home-"));
    cwd = mkdtempSync(join(tmpdir(), "arbor-ws-"));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });
  return {
    get home() {
      return home;
    },
    get cwd() {
      return cwd;
    },
  };
}
