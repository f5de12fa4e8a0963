import { closeSync, constants, ftruncateSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
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
 * One line of entries.idx: `e|u <offset> <length> <id> <parent or ->`. Ids are ASCII (see the entry id
 * pattern) and never start with `-`, so the text's length is its byte length and `-` marks a root.
 */
export function indexLine(id: string, loc: EntryLoc): string {
  return `${loc.update ? "u" : "e"} ${loc.offset} ${loc.length} ${id} ${loc.parentId ?? "-"}\n`;
}

/** The entries.idx bytes up to its last newline: what a torn write past it left is not part of it. */
export function readIndexBytes(path: string): Buffer {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
  return buf.subarray(0, buf.lastIndexOf(10) + 1);
}

const SPACE = 32;
const NEWLINE = 10;

/** FNV-1a over an id's characters (ASCII, so one byte each). */
function hashOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function hashBytes(buf: Buffer, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  return h >>> 0;
}

/** Parses a decimal number ending at a space; -1 when the field is empty or not digits. */
function numberAt(buf: Buffer, from: number): { value: number; next: number } {
  let v = 0;
  let i = from;
  for (; i < buf.length && buf[i] !== SPACE; i++) {
    const d = (buf[i] as number) - 48;
    if (d < 0 || d > 9) return { value: -1, next: i };
    v = v * 10 + d;
  }
  return { value: i === from || i - from > 15 ? -1 : v, next: i + 1 };
}

function sameBytes(buf: Buffer, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (let i = 0; i < aEnd - a; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

/** Where the id of the line at `pos` starts and ends (the line is known to be well formed). */
function idSpan(buf: Buffer, pos: number): [number, number] {
  let start = pos + 2;
  while (buf[start] !== SPACE) start++;
  start++;
  while (buf[start] !== SPACE) start++;
  start++;
  let end = start;
  while (buf[end] !== SPACE) end++;
  return [start, end];
}

/**
 * entries.idx as read, with an open-addressing table from each id's hash to its latest line: a
 * resume looks up the few entries it reads without building an object, or even a string, per entry.
 */
export class IndexTable {
  private constructor(
    private readonly buf: Buffer,
    private readonly slots: Int32Array,
    /** The full hash of each slot's id, so a probe compares bytes only when the hashes agree. */
    private readonly hashes: Uint32Array,
    /** entries.jsonl bytes up to the end of the last indexed record. */
    readonly covered: number,
    /** The last indexed record and its id, checked against entries.jsonl before the index is used. */
    readonly last: { id: string; loc: EntryLoc } | null,
  ) {}

  /** The table of a whole entries.idx; null when a line is malformed or out of order (then it is rebuilt). */
  static parse(buf: Buffer): IndexTable | null {
    let lines = 0;
    for (let i = 0; i < buf.length; i++) if (buf[i] === NEWLINE) lines++;
    // At most half full, so a probe ends within a few slots.
    let size = 1024;
    while (size < lines * 2) size *= 2;
    const slots = new Int32Array(size);
    const hashes = new Uint32Array(size);
    const mask = size - 1;
    let covered = 0;
    let lastPos = -1;
    for (let pos = 0; pos < buf.length; ) {
      const kind = buf[pos];
      if ((kind !== 101 && kind !== 117) || buf[pos + 1] !== SPACE) return null;
      // Byte loops rather than Buffer#indexOf: its call costs more than the few bytes it skips.
      const offset = numberAt(buf, pos + 2);
      const length = numberAt(buf, offset.next);
      const idStart = length.next;
      let idEnd = idStart;
      while (idEnd < buf.length && buf[idEnd] !== SPACE && buf[idEnd] !== NEWLINE) idEnd++;
      let nl = idEnd + 1;
      while (nl < buf.length && buf[nl] !== NEWLINE && buf[nl] !== SPACE) nl++;
      if (offset.value < covered || length.value < 2 || idEnd === idStart || buf[idEnd] !== SPACE) return null;
      if (buf[nl] !== NEWLINE || nl < idEnd + 2) return null;
      const hash = hashBytes(buf, idStart, idEnd);
      let slot = hash & mask;
      let found = false;
      for (let at = slots[slot] as number; at !== 0; at = slots[slot] as number) {
        if (hashes[slot] === hash) {
          const [s, e] = idSpan(buf, at - 1);
          if (sameBytes(buf, s, e, idStart, idEnd)) {
            found = true;
            break;
          }
        }
        slot = (slot + 1) & mask;
      }
      // An update names an entry indexed before it; an entry's own line names a new one.
      if (found !== (kind === 117)) return null;
      slots[slot] = pos + 1;
      hashes[slot] = hash;
      covered = offset.value + length.value;
      lastPos = pos;
      pos = nl + 1;
    }
    const table = new IndexTable(buf, slots, hashes, covered, null);
    if (lastPos < 0) return table;
    const [s, e] = idSpan(buf, lastPos);
    const id = buf.toString("latin1", s, e);
    return new IndexTable(buf, slots, hashes, covered, { id, loc: table.lineAt(lastPos) });
  }

  private lineAt(pos: number): EntryLoc {
    const offset = numberAt(this.buf, pos + 2);
    const length = numberAt(this.buf, offset.next);
    const idEnd = this.buf.indexOf(SPACE, length.next);
    const parent = this.buf.toString("latin1", idEnd + 1, this.buf.indexOf(NEWLINE, idEnd));
    return {
      offset: offset.value,
      length: length.value,
      parentId: parent === "-" ? null : parent,
      update: this.buf[pos] === 117,
    };
  }

  get(id: string): EntryLoc | undefined {
    const mask = this.slots.length - 1;
    const hash = hashOf(id);
    for (let slot = hash & mask, at = this.slots[slot] as number; at !== 0; at = this.slots[slot] as number) {
      if (this.hashes[slot] === hash) {
        const [s, e] = idSpan(this.buf, at - 1);
        if (e - s === id.length && this.buf.toString("latin1", s, e) === id) return this.lineAt(at - 1);
      }
      slot = (slot + 1) & mask;
    }
    return undefined;
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
  ) {}

  add(line: string): void {
    if (!this.healthy) return;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= 64 * 1024) this.flush();
  }

  /** Writes the pending lines. A failure leaves the index short, which the next load completes. */
  flush(): void {
    if (this.pending.length === 0 || !this.healthy) return;
    const text = this.pending.join("");
    this.pending = [];
    this.pendingBytes = 0;
    try {
      if (this.fd === null) {
        this.fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
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
