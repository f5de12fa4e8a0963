import { randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ArborError } from "../errors.js";
import { holderAlive, type LeaseHolder, newHolder, onThisHost, parseHolder } from "./lease.js";

/**
 * Cross-process lock files: `path` exists while someone holds it and names the holder; its mtime is
 * the holder's last heartbeat. Node has no flock, and the lock-file packages on npm record no holder,
 * so a busy error could not say who holds a session nor take over at once from a dead process.
 */

export type TryLock = { ok: true } | { ok: false; holder: LeaseHolder | undefined };

interface Seen {
  raw: string;
  holder: LeaseHolder | undefined;
  mtimeMs: number;
}

/** A lock file being taken over by a process that died in the middle is abandoned after this. */
const TAKEOVER_STALE_MS = 5_000;

function read(path: string): Seen | undefined {
  let mtimeMs: number;
  try {
    // No exception for the common case of no lock: a thrown ENOENT costs more than the whole check.
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return undefined;
    mtimeMs = st.mtimeMs;
  } catch (err) {
    return readFailed(path, err);
  }
  const raw = readRaw(path);
  return raw === undefined ? undefined : { raw, holder: parseHolder(raw), mtimeMs };
}

/** The lock's text; undefined when there is no lock. */
function readRaw(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    return readFailed(path, err);
  }
}

/** A lock gone meanwhile reads as none; any other failure is an io_error naming it. */
function readFailed(path: string, err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
  throw new ArborError("io_error", `Cannot read the lock ${path}: ${(err as Error).message}`);
}

function alive(seen: Seen, ttlMs: number): boolean {
  // A lock that cannot be parsed was not written by this code (it links complete files into place):
  // it is kept until it expires rather than trusted or broken.
  if (!seen.holder) return Date.now() - seen.mtimeMs <= ttlMs;
  return holderAlive(seen.holder, seen.mtimeMs + ttlMs);
}

/** The holder of `path` if it is held by a live process. */
export function lockHolder(path: string, ttlMs: number): LeaseHolder | undefined {
  const seen = read(path);
  return seen && alive(seen, ttlMs) ? (seen.holder ?? unknownHolder(seen)) : undefined;
}

function unknownHolder(seen: Seen): LeaseHolder {
  return { pid: 0, host: "unknown", purpose: "an unknown process", since: new Date(seen.mtimeMs).toISOString(), token: "" };
}

/** Creates `path` holding `content`, complete or not at all: a reader never sees it half written. */
function createComplete(path: string, content: string): boolean {
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(tmp, content);
  try {
    return linkInto(tmp, path);
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * `createComplete` with its file made beforehand, through the thread pool: a new file allocates an
 * inode, which on a busy ext4 scans past every inode freed in the last minutes (0.5–1.5 ms under
 * load), and a lease is taken on the event loop once a run. Returns the `create` for tryLock (it
 * links the made file into place, any number of times) and the removal of the made file, for when
 * the attempts are over: the lock keeps the inode, so that frees nothing when one was taken.
 */
export async function prepareComplete(
  path: string,
  content: string,
): Promise<{ create: (path: string) => boolean; done: () => void }> {
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, content);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new ArborError("io_error", `Cannot create the lock ${path}: ${(err as Error).message}`);
  }
  return {
    create: (target) => linkInto(tmp, target),
    done: () => unlinkQuiet(tmp),
  };
}

/** Links the complete file `tmp` to `path`; false when `path` exists. */
function linkInto(tmp: string, path: string): boolean {
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new ArborError("io_error", `Cannot create the lock ${path}: ${(err as Error).message}`);
  }
}

/**
 * Creates `path` holding `content` in three system calls. A reader may see it empty for a moment
 * (or for good, after a crash in between): an unreadable lock counts as alive until it expires.
 * Used for locks taken around one short piece of work (`withLockFile`); the file store's write locks
 * are links to a holder file instead (LinkedHolder).
 */
export function createFast(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new ArborError("io_error", `Cannot create the lock ${path}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** A holder file last written or touched longer ago than this is touched before a lock is linked to it. */
const HOLDER_TOUCH_MS = 1_000;
const HOLDER_SUFFIX = ".holder";

/**
 * Lock files made as hard links to one holder file (per holder and folder) instead of a new file per
 * lock: creating a file allocates an inode, and on a busy ext4 the allocator scans past every inode
 * freed in the last minutes (0.5–1.5 ms a create under load, on the event loop); a link allocates
 * none, and removing the lock then frees none. A lock made so reads as any other (the holder's JSON,
 * complete from its first moment, unlike `createFast`). Its mtime is the holder file's, touched before
 * a link when older than HOLDER_TOUCH_MS, so elsewhere it ages from about when it was taken; the
 * holder's `since` is when its file was written. `close` removes the file; one left by a process that
 * died is removed by `sweepHolderFiles`.
 */
export class LinkedHolder {
  readonly file: string;
  private made = false;
  private touchedAt = 0;

  constructor(
    dir: string,
    readonly holder: LeaseHolder,
  ) {
    this.file = join(dir, `${holder.token}${HOLDER_SUFFIX}`);
  }

  /** `create` for tryLock: links `path` to the holder file; false when `path` exists. */
  create = (path: string): boolean => {
    for (let attempt = 0; ; attempt++) {
      try {
        this.prepare();
        linkSync(this.file, path);
        return true;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EEXIST") return false;
        // The holder file is gone (swept by a process that took this one for dead): written again, once.
        if (code === "ENOENT" && attempt === 0) {
          this.made = false;
          continue;
        }
        throw new ArborError("io_error", `Cannot create the lock ${path}: ${(err as Error).message}`);
      }
    }
  };

  private prepare(): void {
    const now = Date.now();
    if (!this.made) {
      writeFileSync(this.file, JSON.stringify(this.holder));
      this.made = true;
    } else if (now - this.touchedAt > HOLDER_TOUCH_MS) {
      const time = new Date(now);
      utimesSync(this.file, time, time);
    } else return;
    this.touchedAt = now;
  }

  /** Removes the holder file (locks linked to it stay until they are unlocked). */
  close(): void {
    this.made = false;
    try {
      unlinkQuiet(this.file);
    } catch {
      // Left for sweepHolderFiles.
    }
  }
}

/** Spare lock files (see SpareLocks) end so; each holds an old holder of the process that owns it. */
export const SPARE_SUFFIX = ".spare";

/**
 * Whether a spare's owner may still use it. On this host its process decides, however long the spare
 * sat unused; a spare of another host (a network disk), or one left half rewritten by a crash, counts
 * as left behind once not written for `ttlMs`: removing a live owner's spare only costs it a new file.
 */
function spareKept(seen: Seen, ttlMs: number): boolean {
  if (seen.holder && onThisHost(seen.holder)) return holderAlive(seen.holder, Number.POSITIVE_INFINITY);
  return Date.now() - seen.mtimeMs <= ttlMs;
}

/**
 * Removes the holder files in `dir` whose holder is dead (a process gone, or silent past `ttlMs`
 * elsewhere), and the spare lock files whose owner is (see spareKept).
 */
export function sweepHolderFiles(dir: string, ttlMs: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const spare = name.endsWith(SPARE_SUFFIX);
    if (!spare && !name.endsWith(HOLDER_SUFFIX)) continue;
    const path = join(dir, name);
    try {
      const seen = read(path);
      if (seen && !(spare ? spareKept(seen, ttlMs) : alive(seen, ttlMs))) unlinkQuiet(path);
    } catch {
      // Unreadable: left as it is; it holds no lock by itself.
    }
  }
}

/**
 * Removes the dead holder's lock if it is still the one seen. Takers serialize on a second lock
 * file, so two of them never both remove a lock and one of them then the other's fresh one.
 */
function breakDead(path: string, seen: Seen): void {
  const guard = `${path}.takeover`;
  if (!createComplete(guard, String(process.pid))) {
    const g = read(guard);
    if (g && Date.now() - g.mtimeMs > TAKEOVER_STALE_MS) unlinkQuiet(guard);
    return;
  }
  try {
    const again = read(path);
    if (again && again.raw === seen.raw && again.mtimeMs === seen.mtimeMs) unlinkQuiet(path);
  } finally {
    unlinkQuiet(guard);
  }
}

export function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Tries once (taking over a dead holder's lock) to hold `path` for `holder`. */
export function tryLock(path: string, holder: LeaseHolder, ttlMs: number, create = createComplete): TryLock {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (create(path, JSON.stringify(holder))) return { ok: true };
    const seen = read(path);
    if (!seen) continue;
    if (alive(seen, ttlMs)) return { ok: false, holder: seen.holder ?? unknownHolder(seen) };
    breakDead(path, seen);
  }
  return { ok: false, holder: lockHolder(path, ttlMs) };
}

/** True while `path` still names `token`: the holder's heartbeat (it moves the mtime). */
export function renewLock(path: string, token: string): boolean {
  if (!names(path, token)) return false;
  const now = new Date();
  utimesSync(path, now, now);
  return true;
}

/** Removes `path` if it still names `token` (a lock taken over meanwhile is left to its new holder). */
export function unlock(path: string, token: string): void {
  if (names(path, token)) unlinkQuiet(path);
}

/**
 * Moves `path` to `spare` if it still names `token`, giving the lock back with its file kept for
 * another lock (see SpareLocks); false when it named another holder or was gone (nothing moved).
 */
export function unlockInto(path: string, token: string, spare: string): boolean {
  if (!names(path, token)) return false;
  try {
    renameSync(path, spare);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new ArborError("io_error", `Cannot release the lock ${path}: ${(err as Error).message}`);
  }
}

/**
 * Whether the lock at `path` names `token`. Read without the stat `read` makes for the mtime, which
 * neither a renewal nor an unlock needs: the holder's own lock is there in the common case, so the
 * exception a missing file throws is rare here.
 */
function names(path: string, token: string): boolean {
  const raw = readRaw(path);
  // A token is a random UUID: text without it cannot name it, and is not parsed.
  return raw?.includes(token) === true && parseHolder(raw)?.token === token;
}

/**
 * Runs `work` holding the lock file `path`, waiting (polling, up to `waitMs`) while another live
 * process holds it; `timeout` makes the error thrown when the wait runs out.
 */
export async function withLockFile<T>(
  path: string,
  opts: { purpose: string; ttlMs: number; waitMs: number; timeout: (holder: LeaseHolder | undefined) => ArborError },
  work: () => T | Promise<T>,
): Promise<T> {
  const holder = newHolder(opts.purpose);
  const deadline = Date.now() + opts.waitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    const got = tryLock(path, holder, opts.ttlMs, createFast);
    if (got.ok) break;
    if (Date.now() > deadline) throw opts.timeout(got.holder);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  try {
    return await work();
  } finally {
    // Held for one short piece of work, far below its lifetime: nobody else can have taken it over.
    unlinkQuiet(path);
  }
}
