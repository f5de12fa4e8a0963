import { closeSync, constants, existsSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { writeFileAtomic } from "./atomic-write.js";

/** Where an entry's latest record sits in entries.jsonl, and its parent (for walking a path without reading it). */
export interface EntryLoc {
  offset: number;
  /** Bytes of the record, its newline included. */
  length: number;
  parentId: string | null;
  /** The record is an `update` control record wrapping the entry, not the entry's own line. */
  update: boolean;
}

/**
 * entries.jsonl bytes from which a session keeps entries.idx. Below it a resume reads the entries
 * whole (64 KiB parse in well under a millisecond), which costs less than the index file itself: a
 * file made for every session, sub-agents' included, allocates an inode, and on ext4 without a journal
 * that scans past every inode freed in the last minutes (0.3–0.5 ms of CPU a file measured here).
 */
export const DEFAULT_INDEX_FROM_BYTES = 64 * 1024;

/** The first line of entries.idx: every record line then follows a newline, which a search for one anchors on. */
export const INDEX_HEADER = "arbor-entry-index 1\n";

/**
 * One line of entries.idx: `<id> e|u <offset> <length> <parent or ->`. Ids are ASCII (see the entry id
 * pattern) and never start with `-` or hold a space, so the text's length is its byte length, `-`
 * marks a root, and `\n<id> e ` finds an entry's own line.
 */
export function indexLine(id: string, loc: EntryLoc): string {
  return `${id} ${loc.update ? "u" : "e"} ${loc.offset} ${loc.length} ${loc.parentId ?? "-"}\n`;
}

/** The entries.idx bytes up to its last newline: what a torn write past it left is not part of it. */
export function readIndexBytes(path: string): Buffer {
  let buf: Buffer;
  // A small session has none (see DEFAULT_INDEX_FROM_BYTES): a stat costs less than the error a read would throw.
  if (!existsSync(path)) return Buffer.alloc(0);
  try {
    buf = readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
  return buf.subarray(0, buf.lastIndexOf(10) + 1);
}

const NEWLINE = 10;
const HEADER_BYTES = Buffer.from(INDEX_HEADER, "latin1");

/** A decimal field of at most 15 digits; undefined when it is anything else. */
function decimal(field: string): number | undefined {
  return /^\d{1,15}$/.test(field) ? Number(field) : undefined;
}

/** The record line starting at `start`, checked field by field; undefined when it is malformed. */
function lineAt(buf: Buffer, start: number): { id: string; loc: EntryLoc } | undefined {
  const end = buf.indexOf(NEWLINE, start);
  if (end === -1) return undefined;
  const f = buf.toString("latin1", start, end).split(" ");
  const offset = decimal(f[2] ?? "");
  const length = decimal(f[3] ?? "");
  const id = f[0] as string;
  const parent = f[4] ?? "";
  if (f.length !== 5 || id === "" || parent === "" || (f[1] !== "e" && f[1] !== "u")) return undefined;
  if (offset === undefined || length === undefined || length < 2) return undefined;
  return { id, loc: { offset, length, parentId: parent === "-" ? null : parent, update: f[1] === "u" } };
}

/**
 * entries.idx as read, searched rather than parsed: a resume looks up the few entries it reads with
 * the buffer's native search, so its cost does not grow with the entries it never reads. Only the
 * last line and the (rare) update lines are parsed up front.
 */
export class IndexTable {
  /** Where the last entry line was found: a walk back to the root finds each parent just before it. */
  private hint = -1;

  private constructor(
    private readonly buf: Buffer,
    private readonly updates: Map<string, EntryLoc>,
    /** entries.jsonl bytes up to the end of the last indexed record. */
    readonly covered: number,
    /** The last indexed record and its id, checked against entries.jsonl before the index is used. */
    readonly last: { id: string; loc: EntryLoc } | null,
  ) {}

  /** The index of a whole entries.idx; null when its header or a line it parses is wrong (then it is rebuilt). */
  static parse(buf: Buffer): IndexTable | null {
    if (buf.length < HEADER_BYTES.length || !buf.subarray(0, HEADER_BYTES.length).equals(HEADER_BYTES)) return null;
    if (buf.length === HEADER_BYTES.length) return new IndexTable(buf, new Map(), 0, null);
    const last = lineAt(buf, buf.lastIndexOf(NEWLINE, buf.length - 2) + 1);
    if (!last) return null;
    const updates = new Map<string, EntryLoc>();
    // " u " is only ever the kind field: an id follows a newline, and numbers and parents hold no "u".
    for (let at = buf.indexOf(" u ", HEADER_BYTES.length); at !== -1; at = buf.indexOf(" u ", at + 3)) {
      const line = lineAt(buf, buf.lastIndexOf(NEWLINE, at) + 1);
      if (!line?.loc.update) return null;
      updates.set(line.id, line.loc);
    }
    return new IndexTable(buf, updates, last.loc.offset + last.loc.length, last);
  }

  /** The latest record of `id`; undefined when the index has none, null when its line is malformed. */
  get(id: string): EntryLoc | undefined | null {
    const updated = this.updates.get(id);
    if (updated) return updated;
    const pattern = `\n${id} e `;
    let at = this.hint >= 0 ? this.buf.lastIndexOf(pattern, this.hint, "latin1") : -1;
    if (at === -1) at = this.buf.lastIndexOf(pattern, this.buf.length, "latin1");
    if (at === -1) return undefined;
    this.hint = at;
    const line = lineAt(this.buf, at + 1);
    return line?.id === id ? line.loc : null;
  }
}

/** The record at `loc` in the open entries.jsonl, without its newline; undefined when it is not a whole line. */
export function readRecord(fd: number, loc: EntryLoc): string | undefined {
  const buf = Buffer.allocUnsafe(loc.length);
  let got = 0;
  while (got < loc.length) {
    const n = readSync(fd, buf, got, loc.length - got, loc.offset + got);
    if (n === 0) return undefined;
    got += n;
  }
  if (buf[loc.length - 1] !== 10) return undefined;
  return buf.toString("utf8", 0, loc.length - 1);
}

/**
 * The writer of one session's entries.idx. Lines are kept in memory and written in groups: the index
 * is a cache that a load checks against entries.jsonl and completes from it, so a line lost to a
 * crash costs only a longer read, never a wrong one.
 */
export class IndexWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  private fd: number | null = null;

  constructor(
    private readonly path: string,
    /** Bytes of the file that hold whole, checked lines; what lies past them is cut off before writing. */
    private validBytes: number,
    /** A new index is written once it covers this many bytes of entries (see DEFAULT_INDEX_FROM_BYTES). */
    private readonly fromBytes = 0,
  ) {}

  add(line: string): void {
    if (!this.healthy) return;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= 64 * 1024) this.flush();
  }

  /**
   * Writes the pending lines. A failure leaves the index short, which the next load completes.
   * `covered`: the entries.jsonl bytes the lines reach; a session without an index file keeps its
   * lines here (and the next load rebuilds them, as for a missing index) until that reaches `fromBytes`.
   */
  flush(covered = Number.POSITIVE_INFINITY): void {
    if (this.pending.length === 0 || !this.healthy) return;
    if (this.validBytes === 0 && covered < this.fromBytes) return;
    const text = (this.validBytes === 0 ? INDEX_HEADER : "") + this.pending.join("");
    this.pending = [];
    this.pendingBytes = 0;
    try {
      if (this.fd === null && this.validBytes === 0) {
        // A new index (a session's that just grew past fromBytes, usually): emptied as it is opened, one call instead of three.
        this.fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC, 0o644);
      } else if (this.fd === null) {
        this.fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
        // Shorter than what was read means another process replaced the file: writing at our offset
        // would leave a gap, so this writer stops and the next load completes the index from the entries.
        if (fstatSync(this.fd).size < this.validBytes) throw new Error("entries.idx was replaced");
        ftruncateSync(this.fd, this.validBytes);
      }
      const buf = Buffer.from(text, "latin1");
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off, this.validBytes + off);
      this.validBytes += buf.length;
    } catch {
      // From here on the index would have a hole: stop writing it, and the next load rebuilds it.
      this.close();
      this.validBytes = Number.NaN;
    }
  }

  /** Replaces the whole index (after a load found it missing, stale or wrong). */
  rewrite(text: string): void {
    this.close();
    this.pending = [];
    this.pendingBytes = 0;
    try {
      writeFileAtomic(this.path, text, false);
      this.validBytes = text.length;
    } catch {
      this.validBytes = Number.NaN;
    }
  }

  close(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // Nothing to keep: the index is only a cache.
      }
    }
    this.fd = null;
  }

  /** Whether writes still go on (false after a failed one). */
  get healthy(): boolean {
    return !Number.isNaN(this.validBytes);
  }
}
