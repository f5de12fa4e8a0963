import { randomBytes } from "node:crypto";
import { appendFile, mkdir, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import { type LlmCacheStore, parseRecordingLine, recordingLine } from "./cache-store.js";
import type { Recording } from "./recording.js";

/** Where one recording's line sits in the file. */
interface Slot {
  offset: number;
  length: number;
  created: number;
}

const FILE_NAME = "llm.jsonl";
const CHUNK = 1024 * 1024;
/** Rewrite the file when at least this much of it is dead (replaced or expired records) and dead is most of it. */
const COMPACT_MIN_BYTES = 1024 * 1024;

/**
 * The LLM response cache on disk: `<dir>/llm.jsonl`, one recording a line, newest line for a key
 * wins. An index of key → byte range is built by one scan and kept current by scanning only what
 * was appended since (also by other processes sharing the directory); a hit reads just its line.
 *
 * Writes: a new recording is one append of one line. A crash can leave a torn last line, which is
 * skipped (as is any line that is not a valid recording), and the next append starts on a line of
 * its own. Rewrites (clear, and compaction once dead records are most of the file) write a new file
 * and rename it over the old one, so a reader sees the old file or the new one, never a mix. A
 * record another process appends during a rewrite can be lost: acceptable for a cache.
 */
export class FileCacheStore implements LlmCacheStore {
  readonly kind = "file" as const;
  readonly path: string;
  private readonly dir: string;
  private readonly index = new Map<string, Slot>();
  private liveBytes = 0;
  /** Bytes of the file scanned into the index; a torn last line is left out until something follows it. */
  private scanned = 0;
  private endsWithNewline = true;
  private inode: number | undefined;
  /** Lines skipped because they are not recordings (torn, corrupt, a newer format). */
  private skippedLines = 0;
  /** Operations run one at a time, so a scan never races an append or a rewrite. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, FILE_NAME);
  }

  /** Lines skipped while reading the file so far. */
  get skipped(): number {
    return this.skippedLines;
  }

  get(key: string): Promise<Recording | undefined> {
    return this.serial(async () => {
      await this.refresh();
      const slot = this.index.get(key);
      if (!slot) return undefined;
      const line = await this.readLine(slot);
      const recording = line === undefined ? undefined : parseRecordingLine(line);
      if (recording?.key === key) return recording;
      // Not what the index promised: the file changed under us. Forget it; the next refresh re-reads.
      this.drop(key);
      return undefined;
    });
  }

  set(recording: Recording): Promise<void> {
    return this.serial(async () => {
      await this.refresh();
      const line = `${this.endsWithNewline ? "" : "\n"}${recordingLine(recording)}\n`;
      await mkdir(this.dir, { recursive: true });
      await appendFile(this.path, line, "utf8");
      // Scanning the tail indexes the line where it actually landed, after any other process's.
      await this.refresh();
      await this.compactIfWasteful();
    });
  }

  prune(cutoff: number): Promise<number> {
    return this.serial(async () => {
      await this.refresh();
      let dropped = 0;
      for (const [key, slot] of this.index) {
        if (slot.created < cutoff) {
          this.drop(key);
          dropped++;
        }
      }
      if (dropped > 0) await this.compactIfWasteful();
      return dropped;
    });
  }

  clear(): Promise<number> {
    return this.serial(async () => {
      await this.refresh();
      const entries = this.index.size;
      await this.replaceFile("");
      return entries;
    });
  }

  size(): Promise<{ entries: number; bytes: number }> {
    return this.serial(async () => {
      await this.refresh();
      return { entries: this.index.size, bytes: this.liveBytes };
    });
  }

  close(): Promise<void> {
    return this.serial(async () => {});
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => {});
    return run.catch((err: unknown) => {
      if (err instanceof ArborError) throw err;
      throw new ArborError("io_error", `The LLM cache file ${this.path} could not be used: ${(err as Error).message}`);
    });
  }

  private reset(): void {
    this.index.clear();
    this.liveBytes = 0;
    this.scanned = 0;
    this.endsWithNewline = true;
  }

  private drop(key: string): void {
    const slot = this.index.get(key);
    if (!slot) return;
    this.liveBytes -= slot.length;
    this.index.delete(key);
  }

  /** Brings the index up to date with the file: a scan of what was appended, or of all of it when the file was replaced. */
  private async refresh(): Promise<void> {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      this.reset();
      this.inode = undefined;
      return;
    }
    if (info.ino !== this.inode || info.size < this.scanned) {
      this.reset();
      this.inode = info.ino;
    }
    if (info.size > this.scanned) await this.scan(this.scanned, info.size);
  }

  private async scan(from: number, to: number): Promise<void> {
    const handle = await open(this.path, "r");
    try {
      let carry = Buffer.alloc(0);
      let carryStart = from;
      for (let position = from; position < to; ) {
        const buffer = Buffer.alloc(Math.min(CHUNK, to - position));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
        let start = 0;
        for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
          this.indexLine(data.subarray(start, nl), carryStart + start);
          start = nl + 1;
        }
        carry = Buffer.from(data.subarray(start));
        carryStart += start;
      }
      // An unterminated tail is a torn or half-written line: not indexed, and the next append starts a new line.
      this.scanned = carryStart;
      this.endsWithNewline = carry.length === 0;
    } finally {
      await handle.close();
    }
  }

  private indexLine(line: Buffer, offset: number): void {
    if (line.length === 0) return;
    let head: { key?: unknown; createdAt?: unknown };
    try {
      head = JSON.parse(line.toString("utf8"));
    } catch {
      this.skippedLines++;
      return;
    }
    const created = typeof head.createdAt === "string" ? Date.parse(head.createdAt) : Number.NaN;
    if (typeof head.key !== "string" || Number.isNaN(created)) {
      this.skippedLines++;
      return;
    }
    this.drop(head.key);
    this.index.set(head.key, { offset, length: line.length, created });
    this.liveBytes += line.length;
  }

  private async readLine(slot: Slot): Promise<string | undefined> {
    const handle = await open(this.path, "r");
    try {
      const buffer = Buffer.alloc(slot.length);
      const { bytesRead } = await handle.read(buffer, 0, slot.length, slot.offset);
      return bytesRead === slot.length ? buffer.toString("utf8") : undefined;
    } finally {
      await handle.close();
    }
  }

  /** Rewrites the file with live records only once dead ones are most of a sizeable file. */
  private async compactIfWasteful(): Promise<void> {
    const dead = this.scanned - this.liveBytes;
    if (dead < COMPACT_MIN_BYTES || dead < this.liveBytes) return;
    const lines: string[] = [];
    const slots = [...this.index.values()].sort((a, b) => a.offset - b.offset);
    for (const slot of slots) {
      const line = await this.readLine(slot);
      if (line !== undefined) lines.push(`${line}\n`);
    }
    await this.replaceFile(lines.join(""));
  }

  /** Writes `content` as the whole file, atomically, then re-reads the index from it. */
  private async replaceFile(content: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${this.path}.tmp-${randomBytes(6).toString("hex")}`;
    try {
      await writeFile(tmp, content, "utf8");
      await rename(tmp, this.path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    this.reset();
    this.inode = undefined;
    await this.refresh();
  }
}
