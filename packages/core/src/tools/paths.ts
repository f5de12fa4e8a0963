import { lstat, readlink, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import { ArborError } from "../errors.js";
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
 * before the tool may touch it. Symlinks are followed all the way, the last component included and
 * also when what it points to does not exist yet (writing through a dangling link creates its
 * target), so a link inside the workspace pointing elsewhere is an external path. `kind` says
 * whether the path names a directory (asked for itself) or a file (asked for its folder).
 *
 * Returns the resolved path, links followed: permission rules are matched against what is really
 * read or written (a `notes.txt` linked to `.env` is `.env`), and the tool acts on that path.
 */
export async function resolveToolPath(ctx: ToolContext, path: string, kind: "file" | "directory"): Promise<string> {
  const absolute = resolveInWorkspace(ctx.cwd, path);
  const [root, real] = await Promise.all([resolveLinks(ctx.cwd), resolveLinks(absolute)]);
  if (isInside(ctx.cwd, absolute) && isInside(root, real)) return join(ctx.cwd, relative(root, real));
  const dir = kind === "directory" ? absolute : dirname(absolute);
  await ctx.ask({
    permission: "external_directory",
    patterns: [dir],
    always: [`${dir}${dir.endsWith(sep) ? "" : sep}*`],
    alwaysWildcard: true,
    metadata: { path: absolute },
  });
  return real;
}

/**
 * `resolveToolPath`, with the path as permission patterns and messages show it (relative to the
 * workspace when inside it): what every tool acting on a path needs first.
 */
export async function toolPath(
  ctx: ToolContext,
  path: string,
  kind: "file" | "directory",
): Promise<{ absolute: string; shown: string }> {
  const absolute = await resolveToolPath(ctx, path, kind);
  return { absolute, shown: displayPath(ctx.cwd, absolute) };
}

/**
 * `toolPath` of a file a tool is about to change, once the `edit` permission allows it there: one
 * rule governs every tool that changes files (as OpenCode's does).
 */
export async function editablePath(
  ctx: ToolContext,
  path: string,
  tool: string,
  metadata: Record<string, unknown> = {},
): Promise<{ absolute: string; shown: string }> {
  const target = await toolPath(ctx, path, "file");
  await ctx.ask({ permission: "edit", patterns: [target.shown], metadata: { ...metadata, path: target.absolute, tool } });
  return target;
}

/** Links followed before giving up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

/**
 * The path with every symlink in it followed, component by component; from the first component
 * that does not exist on, the rest is taken as written. Unlike realpath this also follows a link
 * whose target is missing.
 */
export async function resolveLinks(path: string): Promise<string> {
  // A path that exists throughout resolves in one call, the same as the walk below would (it takes
  // `..` after links as the kernel does); the walk, an lstat per component, is for the rest.
  const whole = await realpath(resolve(path)).catch(() => undefined);
  if (whole !== undefined) return whole;
  const pending = resolve(path).split(sep).filter(Boolean);
  let current = parse(resolve(path)).root;
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    const info = await lstat(next).catch(() => undefined);
    if (!info) return resolve(next, ...pending);
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) {
      throw new ArborError("tool_failed", `${path} goes through more than ${MAX_LINKS} symbolic links (a link loop?).`);
    }
    const target = await readlink(next);
    pending.unshift(...target.split(sep).filter(Boolean));
    if (isAbsolute(target)) current = parse(target).root;
  }
  return current;
}
