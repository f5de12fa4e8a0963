import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ArborError } from "../errors.js";

/** Folders no search wants to descend into: dependencies, VCS internals, caches. */
export const DEFAULT_IGNORED_DIRS: readonly string[] = ["node_modules", ".git", ".hg", ".svn", "__pycache__", ".venv"];

export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Relative to the walk root, with `/` separators. */
  relative: string;
  depth: number;
  isDirectory: boolean;
  isFile: boolean;
}

export interface WalkOptions {
  ignoreDirs?: readonly string[];
  /** Extra entry filter (relative path, is directory); a skipped directory is not descended into. */
  skip?: (relative: string, isDirectory: boolean) => boolean;
  signal?: AbortSignal;
  /** Stop after visiting this many entries; `walk` then reports `truncated`. */
  maxEntries?: number;
}

/**
 * Walks `root` in name order (so results are deterministic): a folder's entries are visited before
 * anything deeper in it. `visit` returns false to stop early. Symlinks are visited as files and never
 * followed as folders, which keeps the walk finite on link cycles; unreadable folders are skipped
 * rather than failing the whole search. Resolves `truncated` when `maxEntries` cut the walk short.
 */
export async function walk(
  root: string,
  options: WalkOptions,
  visit: (entry: WalkEntry) => boolean | undefined,
): Promise<{ truncated: boolean }> {
  const ignore = new Set(options.ignoreDirs ?? DEFAULT_IGNORED_DIRS);
  const maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  let visited = 0;
  const stack: Array<{ dir: string; relative: string; depth: number }> = [{ dir: root, relative: "", depth: 0 }];
  while (stack.length > 0) {
    const { dir, relative, depth } = stack.pop()!;
    if (options.signal?.aborted) throw abortedError();
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: Array<{ dir: string; relative: string; depth: number }> = [];
    for (const entry of entries) {
      const isDirectory = entry.isDirectory();
      if (isDirectory && ignore.has(entry.name)) continue;
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (options.skip?.(rel, isDirectory)) continue;
      if (++visited > maxEntries) return { truncated: true };
      const path = join(dir, entry.name);
      const keepGoing = visit({
        path,
        relative: rel,
        depth: depth + 1,
        isDirectory,
        isFile: entry.isFile() || entry.isSymbolicLink(),
      });
      if (keepGoing === false) return { truncated: false };
      if (isDirectory) subdirs.push({ dir: path, relative: rel, depth: depth + 1 });
    }
    // Reverse so the stack pops them in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  return { truncated: false };
}

export function abortedError(): ArborError {
  return new ArborError("aborted", "The tool was aborted before it finished.");
}
