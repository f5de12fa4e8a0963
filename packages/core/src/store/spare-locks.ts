import { randomBytes } from "node:crypto";
import { closeSync, constants, ftruncateSync, linkSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../errors.js";
import type { LeaseHolder } from "./lease.js";
import { SPARE_SUFFIX, type TryLock, tryLock, unlinkQuiet, unlock, unlockInto } from "./lock-file.js";

/** Spares one owner keeps at most; a lock given back beyond them is removed as before. */
const MAX_SPARES = 16;

/**
 * Lock files recycled by one owner (a store instance) in one folder: a lock given back is renamed to
 * a spare name of the owner instead of removed, and the next lock taken is that file, rewritten and
 * linked into place. Creating a file allocates an inode and removing one frees it, and on ext4 a create
 * in a folder where inodes were freed lately scans past them (0.35–0.5 ms of CPU a create, against
 * ~10 µs to rewrite an existing file): in steady state a lock so taken and given back allocates and
 * frees none.
 *
 * A lock so made reads as any other: the spare is rewritten (written over, cut to length, closed) under its
 * spare name, which no reader of a lock looks at, so the lock is complete from the moment it is linked,
 * and its mtime is when it was written, as for a new file. A spare is named `<owner>-<n>.spare`, with
 * `n` never reused by the owner, and holds the holder of the last lock made of it, a holder of the
 * owner's process: `close` removes the spares, and those of a process that died are removed by
 * `sweepHolderFiles`. Another process may remove a spare it takes for left behind (see `spareKept`):
 * the owner then finds it gone and makes a new file.
 */
export class SpareLocks {
  private readonly spares: string[] = [];
  private readonly owner = randomBytes(8).toString("hex");
  private named = 0;
  private closed = false;

  constructor(private readonly dir: string) {}

  /**
   * `tryLock` with a spare's file: undefined when there is no spare to use, and the caller makes a new
   * file. A spare that could not be linked (the lock is held) stays a spare.
   */
  tryLock(path: string, holder: LeaseHolder, ttlMs: number): TryLock | undefined {
    const spare = this.spares.pop();
    if (spare === undefined || !rewrite(spare, JSON.stringify(holder))) return undefined;
    let gone = false;
    const create = (target: string): boolean => {
      if (gone) return false;
      const linked = link(spare, target);
      gone = linked === "gone";
      return linked === true;
    };
    let got: TryLock;
    try {
      got = tryLock(path, holder, ttlMs, create);
    } catch (err) {
      this.spares.push(spare);
      throw err;
    }
    // The spare was removed under it (see spareKept): whatever tryLock saw, the caller tries anew.
    if (gone) return undefined;
    if (!got.ok) this.spares.push(spare);
    else {
      try {
        // The lock keeps the inode: dropping the spare name frees nothing.
        unlinkQuiet(spare);
      } catch {
        // Left as a second name of the lock; swept once this process is gone.
      }
    }
    return got;
  }

  /** Gives back the lock at `path` if it names `token` (see `unlock`), keeping its file as a spare while there is room. */
  unlock(path: string, token: string): void {
    if (this.closed || this.spares.length >= MAX_SPARES) {
      unlock(path, token);
      return;
    }
    const spare = join(this.dir, `${this.owner}-${this.named++}${SPARE_SUFFIX}`);
    if (unlockInto(path, token, spare)) this.spares.push(spare);
  }

  /** Removes the spares; locks given back later are removed as before (the owner is closing). */
  close(): void {
    this.closed = true;
    for (const spare of this.spares.splice(0)) {
      try {
        unlinkQuiet(spare);
      } catch {
        // Swept once this process is gone.
      }
    }
  }
}

/**
 * Replaces the spare's content with `content`, in place (no new inode); false when it cannot be used:
 * gone (swept), or not writable, and then removed as far as it can be (a new file reports the failure).
 */
function rewrite(spare: string, content: string): boolean {
  try {
    // No O_CREAT: a spare swept meanwhile is not made again under its name. No O_TRUNC either: on
    // ext4 a file cut to nothing and written again is flushed to disk at close (its auto_da_alloc
    // rule for files replaced by truncation), and its block is freed and allocated again: 100-140 µs
    // against ~8 µs to write over the same block and cut it to the new length.
    const fd = openSync(spare, constants.O_WRONLY);
    try {
      const bytes = Buffer.from(content);
      // A short write (a full disk) leaves the spare unusable: it goes, and a new file is made.
      if (writeSync(fd, bytes, 0, bytes.length, 0) !== bytes.length) throw new Error("short write");
      ftruncateSync(fd, bytes.length);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    try {
      unlinkQuiet(spare);
    } catch {
      // Swept once this process is gone.
    }
    return false;
  }
}

/** Links the spare to `path`: false when `path` exists, "gone" when the spare does not. */
function link(spare: string, path: string): boolean | "gone" {
  try {
    linkSync(spare, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "ENOENT") return "gone";
    throw new ArborError("io_error", `Cannot create the lock ${path}: ${(err as Error).message}`);
  }
}
