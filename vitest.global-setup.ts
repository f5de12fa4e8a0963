import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleCore, coreBundleIsCurrent } from "./scripts/bundle-core.mjs";
import { failureLine } from "./test-setup/failure.js";
import { startTestServices } from "./test-setup/services.js";

const root = fileURLToPath(new URL(".", import.meta.url));

/** The newest modification time under `path` (a file or a directory tree). */
function newest(path: string): number {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let max = info.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

/**
 * The browser tests drive the inspector as `arbor serve` ships it, built into packages/server/web-dist.
 * Vite takes a couple of seconds, so it runs only when a source is newer than the build.
 */
function buildWebApp(): void {
  const web = join(root, "packages/web");
  const sources = Math.max(
    newest(join(web, "src")),
    newest(join(web, "index.html")),
    newest(join(web, "vite.config.ts")),
    newest(join(web, "package.json")),
  );
  if (newest(join(root, "packages/server/web-dist/index.html")) >= sources) return;
  const vite = join(dirname(createRequire(join(web, "package.json")).resolve("vite/package.json")), "bin/vite.js");
  // Vitest sets NODE_ENV=test, which would give a development build of React.
  const env = { ...process.env, NODE_ENV: "production" };
  execFileSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: web, stdio: "inherit", env });
}

/**
 * Some tests spawn the built library or CLI as a child process (kill -9 recovery, CLI end to end),
 * so the build must match the source under test. `tsc -b` is incremental: quick when nothing changed.
 * Core's bundle, which those processes load, is made again when core's build changed.
 */
async function build(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  // ARBOR_TEST_BUILD narrows the build (e.g. "packages/core") while another package is mid-edit.
  const projects = process.env.ARBOR_TEST_BUILD?.split(/\s+/).filter(Boolean) ?? [
    "packages/core",
    "packages/server",
    "packages/cli",
    "packages/web",
  ];
  const tscProjects = projects.filter((p) => p !== "packages/web");
  if (tscProjects.length > 0) {
    execFileSync(process.execPath, [tsc, "-b", ...tscProjects], { cwd: root, stdio: "inherit" });
  }
  if (!coreBundleIsCurrent()) await bundleCore();
  if (projects.includes("packages/web")) buildWebApp();
}

/** Builds, then finds or starts the databases and the browser; the returned teardown stops them. */
export default async function setup(): Promise<() => Promise<void>> {
  await build();
  const services = await startTestServices(process.env).catch((err: unknown) => {
    // One line saying what to do, rather than a stack from deep inside a package.
    const { line, details } = failureLine(err);
    if (details) console.error(details);
    const short = new Error(line);
    short.stack = `\n${line}\n`;
    throw short;
  });
  console.log(`test services: ${services.describe.join("; ")}`);
  return async () => {
    await services.stop();
    if (services.skipped) console.log(`\n\u001b[1;33m!!! ${services.skipped}\u001b[0m\n`);
  };
}
