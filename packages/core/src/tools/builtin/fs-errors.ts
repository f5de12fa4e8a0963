import { readdir, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { ArborError } from "../../errors.js";

/**
 * The error for a path that does not exist, naming a few similar entries of its folder: a model
 * that guessed `src/Index.ts` for `src/index.ts` can then fix the call by itself.
 */
export async function notFoundError(absolute: string, shown: string): Promise<ArborError> {
  const wanted = basename(absolute).toLowerCase();
  const stripped = wanted.replace(/\.[^.]*$/, "");
  const stem = stripped.length >= 2 ? stripped : wanted;
  let suggestions: string[] = [];
  try {
    const names = await readdir(dirname(absolute));
    suggestions = names
      .filter((name) => {
        const lower = name.toLowerCase();
        const otherStem = lower.replace(/\.[^.]*$/, "");
        return lower.includes(stem) || (otherStem.length >= 2 && stem.includes(otherStem));
      })
      .slice(0, 5);
  } catch {
    // The folder is missing too; nothing to suggest.
  }
  const hint =
    suggestions.length > 0
      ? ` Did you mean one of: ${suggestions.join(", ")}?`
      : " Check the path (relative paths start at the workspace root) or use glob to find the file.";
  return new ArborError("tool_failed", `File not found: ${shown}.${hint}`, { path: absolute });
}

/** stat that answers undefined for a missing path instead of throwing. */
export async function statOrUndefined(path: string): Promise<Awaited<ReturnType<typeof stat>> | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") {
      return undefined;
    }
    throw err;
  }
}
