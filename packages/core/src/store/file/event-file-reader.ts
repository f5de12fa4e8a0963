import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ArborError } from "../../errors.js";
import type { StoredEvent } from "../event-records.js";

const NEWLINE = 10;
/** Bytes read per step while looking for a line's end or start: most records are far smaller. */
const PROBE = 4096;
/** Bytes read per step while reading a page of records forward. */
const CHUNK = 64 * 1024;
/** A record as the log writes it: `{"id":N,…`, so its id is read without parsing the rest. */
const ID_PREFIX = /^\{"id":(\d+)[,}]/;

/**
 * Reads an event log (`events.jsonl`: one record a line, ids strictly increasing) without reading
 * all of it: the first record after an id is found by a binary search over byte offsets, so a page
 * costs O(log n + page) however long the log is, and paging through the whole log is linear. It
 * keeps nothing between calls, so appends and rewrites by another process are simply seen. Only
 * whole lines count: a last line without its newline is a write in progress or torn by a crash.
 */
class EventLogFile {
  private readonly probe = Buffer.allocUnsafe(PROBE);
  /** Bytes up to and including the last newline. */
  readonly end: number;

  constructor(
    private readonly fd: number,
    private readonly file: string,
  ) {
    this.end = this.lastNewlineBefore(fstatSync(fd).size) + 1;
  }

  /** The offset of the last newline before `pos`, or -1. */
  private lastNewlineBefore(pos: number): number {
    while (pos > 0) {
      const from = Math.max(0, pos - PROBE);
      const n = readSync(this.fd, this.probe, 0, pos - from, from);
      const at = this.probe.subarray(0, n).lastIndexOf(NEWLINE);
      if (at >= 0) return from + at;
      pos = from;
    }
    return -1;
  }

  /** The offset of the first newline at or after `pos` (there is one before `end`). */
  private newlineFrom(pos: number): number {
    for (;;) {
      const n = readSync(this.fd, this.probe, 0, Math.min(PROBE, this.end - pos), pos);
      const at = this.probe.subarray(0, n).indexOf(NEWLINE);
      if (at >= 0) return pos + at;
      // The file was cut shorter under us (another process rewrote it in place).
      if (n === 0) throw new ArborError("io_error", `${this.file} changed while it was read; read it again.`);
      pos += n;
    }
  }

  /** Where the first line starting at or after `pos` starts (`end` when none does). */
  private lineStartFrom(pos: number): number {
    return pos === 0 ? 0 : this.newlineFrom(pos - 1) + 1;
  }

  private parse(start: number, text: string): StoredEvent {
    try {
      return JSON.parse(text) as StoredEvent;
    } catch {
      throw new ArborError(
        "corrupt_session",
        `${this.file}: the record at byte ${start} is not valid JSON; the event log was not changed.`,
        { file: this.file },
      );
    }
  }

  /** The id of the record starting at `start` (before `end`). */
  private idAt(start: number): number {
    const n = readSync(this.fd, this.probe, 0, Math.min(64, this.end - start), start);
    const match = ID_PREFIX.exec(this.probe.toString("latin1", 0, n));
    if (match) return Number(match[1]);
    const stop = this.newlineFrom(start);
    const line = Buffer.allocUnsafe(stop - start);
    readSync(this.fd, line, 0, line.length, start);
    return this.parse(start, line.toString("utf8")).id;
  }

  /** The offset of the first record whose id is greater than `after`. */
  private firstAfter(after: number): number {
    if (after === 0) return 0;
    // The smallest offset whose next line holds an id above `after` (or is past the last line).
    let lo = 0;
    let hi = this.end;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const start = this.lineStartFrom(mid);
      if (start < this.end && this.idAt(start) <= after) lo = start + 1;
      else hi = mid;
    }
    return this.lineStartFrom(lo);
  }

  /** Up to `limit` records after `after`, oldest first. */
  page(after: number, limit: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    let buf = Buffer.allocUnsafe(CHUNK);
    let filled = 0;
    // File offset of buf[0].
    let bufStart = this.firstAfter(after);
    while (out.length < limit && bufStart + filled < this.end) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = readSync(this.fd, buf, filled, Math.min(buf.length - filled, this.end - bufStart - filled), bufStart + filled);
      if (n === 0) break;
      const stop = filled + n;
      let from = 0;
      for (let nl = buf.indexOf(NEWLINE, filled); nl !== -1 && nl < stop && out.length < limit; nl = buf.indexOf(NEWLINE, from)) {
        if (nl > from) {
          const event = this.parse(bufStart + from, buf.toString("utf8", from, nl));
          if (event.id > after) out.push(event);
        }
        from = nl + 1;
      }
      buf.copy(buf, 0, from, stop);
      filled = stop - from;
      bufStart += from;
    }
    return out;
  }

  /** The id of the last whole record, 0 when there is none. */
  lastId(): number {
    if (this.end === 0) return 0;
    return this.idAt(this.lastNewlineBefore(this.end - 1) + 1);
  }
}

function withLog<T>(file: string, read: (log: EventLogFile) => T, empty: T): T {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return empty;
    throw new ArborError("io_error", `Cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return read(new EventLogFile(fd, file));
  } catch (err) {
    if (err instanceof ArborError) throw err;
    throw new ArborError("io_error", `Cannot read ${file}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** Up to `limit` records of the log at `file` with an id above `after`, oldest first; none when it does not exist. */
export function readEventsAfter(file: string, after: number, limit: number): StoredEvent[] {
  return withLog(file, (log) => log.page(after, limit), []);
}

/** The id of the newest whole record of the log at `file`, 0 when it is empty or does not exist. */
export function lastEventIdOf(file: string): number {
  return withLog(file, (log) => log.lastId(), 0);
}
