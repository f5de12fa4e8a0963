import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import type { ToolContext } from "./tool.js";

/** True when `child` is `root` itself or lies under it (lexically). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Resolves a path the model gave against the workspace; `~` means the user's home as in a shell. */
export function resolveInWorkspace(cwd: string, path: string): string {
  if (path === "~" || path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return resolve(cwd, path);
}

/**
 * How a path is shown to the model and matched by permission rules: relative to the workspace when
 * inside it (shorter, and what users write in rules such as `src/*`), absolute otherwise.
 */
export function displayPath(cwd: string, absolute: string): string {
  if (!isInside(cwd, absolute)) return absolute;
  const rel = relative(cwd, absolute);
  return rel === "" ? "." : rel.split(sep).join("/");
}

/**
 * Resolves `path` for a tool and, when it lies outside the workspace, asks `external_directory`
 * before the tool may touch it. The check also follows symlinks of the part that exists, so a link
 * inside the workspace pointing elsewhere is still an external path. `kind` says whether the path
 * names a directory (asked for itself) or a file (asked for its folder).
 */
export async function resolveToolPath(ctx: ToolContext, path: string, kind: "file" | "directory"): Promise<string> {
  const absolute = resolveInWorkspace(ctx.cwd, path);
  if (await isInsideWorkspace(ctx.cwd, absolute)) return absolute;
  const dir = kind === "directory" ? absolute : dirname(absolute);
  await ctx.ask({
    permission: "external_directory",
    patterns: [dir],
    always: [`${dir}${dir.endsWith(sep) ? "" : sep}*`],
    metadata: { path: absolute },
  });
  return absolute;
}

async function isInsideWorkspace(cwd: string, absolute: string): Promise<boolean> {
  if (!isInside(cwd, absolute)) return false;
  const [realRoot, realTarget] = await Promise.all([realpathOfExisting(cwd), realpathOfExisting(absolute)]);
  return isInside(realRoot, realTarget);
}

/** realpath of the longest existing prefix, with the missing rest appended (for files not yet written). */
async function realpathOfExisting(path: string): Promise<string> {
  let current = path;
  const missing: string[] = [];
  for (;;) {
    try {
      return resolve(await realpath(current), ...missing);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.unshift(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}
