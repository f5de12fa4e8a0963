// Machine description for the header, and temp directories.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { coreBundleIsCurrent } from "../../scripts/bundle-core.mjs";

export const REPO = new URL("../../", import.meta.url).pathname;

export function git(args) {
  try {
    return execFileSync("git", args, { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    newest = Math.max(newest, name.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export function loadavg() {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
}

export function headerLines() {
  const cpus = os.cpus();
  const lines = [
    `date      ${new Date().toISOString()}`,
    `node      ${process.version} (v8 ${process.versions.v8}), ${os.type()} ${os.release()} ${os.arch()}`,
    `cpu       ${cpus[0]?.model ?? "unknown"} × ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM`,
    `tmpdir    ${os.tmpdir()}`,
    `load      ${loadavg()} (1/5/15 min; other work on this machine widens p99)`,
  ];
  const head = git(["rev-parse", "--short", "HEAD"]);
  const dirty = git(["status", "--porcelain", "packages/core"]) !== "";
  if (head) lines.push(`commit    ${head}${dirty ? " (packages/core has uncommitted changes)" : ""}`);
  try {
    // tsc -b rewrites only what changed, so the build time is the newest file it wrote.
    const built = Math.max(
      newestMtime(join(REPO, "packages/core/dist")),
      statSync(join(REPO, "packages/core/tsconfig.tsbuildinfo")).mtimeMs,
    );
    const src = newestMtime(join(REPO, "packages/core/src"));
    const warning =
      src > built
        ? "  WARNING: src is newer than dist; run npm run build"
        : coreBundleIsCurrent()
          ? ""
          : "  WARNING: dist-bundle (what @arbor/core loads) is older than dist; run npm run build";
    lines.push(`core      dist built ${new Date(built).toISOString()}${warning}`);
  } catch {
    lines.push("core      dist missing: run npm run build");
  }
  return lines;
}

/** A fresh directory under os.tmpdir(); `remove()` deletes it. */
export function tempDir(prefix = "arbor-bench-") {
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Total apparent size of the files under `dir`, or of one file. */
export function sizeOf(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of readdirSync(path)) total += sizeOf(join(path, name));
  return total;
}
