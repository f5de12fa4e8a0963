import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Replace a file as a whole: readers see the old or the new content, never a mix. `mode` is given to
 * the temporary file when it is created, so a secret is never readable by others, not even for a moment.
 */
export function writeFileAtomic(path: string, content: string, fsync: boolean, mode = 0o666): void {
  const tmp = `${path}.tmp-${randomBytes(6).toString("hex")}`;
  try {
    // The temporary name is new (random), so it is written as a new file.
    writeFileWhole(tmp, content, fsync, mode);
    renameSync(tmp, path);
    if (fsync) syncDir(dirname(path));
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Writes a new file in a directory no reader sees yet (it is renamed into place as a whole). */
export function writeFileWhole(path: string, content: string, fsync: boolean, mode = 0o666): void {
  const fd = openSync(path, "wx", mode);
  try {
    writeSync(fd, content);
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `writeFileWhole` through the thread pool: for files made where a new inode is costly (see `SessionDirs.create`). */
export async function writeFileWholeAsync(path: string, content: string, fsync: boolean): Promise<void> {
  const handle = await open(path, "wx");
  try {
    if (content !== "") await handle.writeFile(content);
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
