import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
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

/**
 * The first `maxBytes` of a regular file (all of it by default) and the file's size; undefined when
 * it cannot be read or is not a regular file. Opened non-blocking, so a FIFO in a file's place cannot
 * hang the process; its type is then checked on the open handle, not by a racy stat beforehand. For
 * the small files every run reads (prompt files, skills): synchronous, since through the thread pool
 * the open, stat, read and close of a small file cost ~5x the CPU (~105 against ~20 µs for 3 KB).
 */
export function readRegularFile(path: string, maxBytes = Number.POSITIVE_INFINITY): { bytes: Buffer; size: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    const size = Math.min(info.size, maxBytes);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const bytesRead = readSync(fd, buffer, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: buffer.subarray(0, read), size: info.size };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Only read from: a failed close loses nothing.
      }
    }
  }
}
