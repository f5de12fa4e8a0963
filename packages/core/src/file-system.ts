import { readFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { ArborError, type ArborErrorCode } from "./errors.js";

/**
 * A file's text; undefined when there is no file, which is not a failure wherever a missing file
 * means "nothing saved yet". Any other failure to read (permissions, a folder in its place) is an
 * ArborError with `code`, naming the file.
 */
export function readTextIfExists(path: string, code: ArborErrorCode = "io_error"): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ArborError(code, `Cannot read ${path}: ${(err as Error).message}`);
  }
}

/** Whether anything is at `path`: a link counts, whether or not what it names exists. */
export async function pathExists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
