import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import { type EventWindow, inEventWindow, PURGED_EVENT_DATA, type StoredEvent } from "../event-records.js";
import type { Durability } from "../spec.js";
import { writeFileAtomic } from "./atomic-write.js";
import { lastEventIdOf, readEventsAfter } from "./event-file-reader.js";

export const EVENTS_FILE = "events.jsonl";

interface LogState {
  lastId: number;
  /** Records in the file. */
  count: number;
  /** Bytes of whole records; a torn tail past it is cut off before the next append. */
  bytes: number;
}

/**
 * A session's event log as `<session dir>/events.jsonl`, one record a line. It lives in the session's
 * directory, so deleting the session deletes it. Appends reach the OS before they return (and the
 * disk in fsync mode); a torn last line after a crash is ignored on read and cut off on the next
 * append. Past `maxEvents` plus a tenth, the file is rewritten atomically with the newest
 * `maxEvents`, so retention costs O(1) amortized per append. Callers serialize appends per session.
 */
export class EventFiles {
  private readonly states = new Map<string, LogState>();

  constructor(
    private readonly sessionsRoot: string,
    private readonly durability: Durability,
    private readonly maxEvents: number,
  ) {}

  private file(id: string): string {
    return join(this.sessionsRoot, id, EVENTS_FILE);
  }

  /** Drops what is known of a session's log (after it was deleted). */
  forget(id: string): void {
    this.states.delete(id);
  }

  /** Up to `limit` records after `after`, oldest first, read from the file itself (another process may have appended). */
  page(id: string, after: number, limit: number): StoredEvent[] {
    return readEventsAfter(this.file(id), after, limit);
  }

  /** The newest record's id in the file, 0 for an empty log. */
  newestId(id: string): number {
    return lastEventIdOf(this.file(id));
  }

  lastId(id: string): number {
    return this.state(id).lastId;
  }

  append(id: string, events: readonly StoredEvent[]): void {
    if (events.length === 0) return;
    const state = this.state(id);
    const text = events.map((e) => `${JSON.stringify(e)}\n`).join("");
    const file = this.file(id);
    let fd: number;
    try {
      fd = openSync(file, "a");
    } catch (err) {
      throw new ArborError("io_error", `Cannot open ${file}: ${(err as Error).message}`);
    }
    try {
      // A torn record from a crash: cut it off so the new records start on a line of their own.
      if (fstatSync(fd).size > state.bytes) ftruncateSync(fd, state.bytes);
      const buf = Buffer.from(text);
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      if (this.durability === "fsync") fsyncSync(fd);
    } catch (err) {
      throw new ArborError("io_error", `Cannot append to ${file}: ${(err as Error).message}`);
    } finally {
      closeSync(fd);
    }
    state.bytes += Buffer.byteLength(text);
    state.count += events.length;
    state.lastId = (events[events.length - 1] as StoredEvent).id;
    if (state.count > this.maxEvents + Math.ceil(this.maxEvents / 10)) this.trim(id, state);
  }

  /** Blanks the records stamped in the window by rewriting the file atomically; returns how many. */
  blank(id: string, window: EventWindow): number {
    const { events } = this.load(id);
    let n = 0;
    const kept = events.map((e) => {
      if (!inEventWindow(e.timestamp, window)) return e;
      n++;
      return { ...e, data: { ...PURGED_EVENT_DATA } };
    });
    if (n === 0) return 0;
    const text = kept.map((e) => `${JSON.stringify(e)}\n`).join("");
    // Always durable: an erasure must not come back after a power cut.
    writeFileAtomic(this.file(id), text, true);
    this.states.delete(id);
    return n;
  }

  private trim(id: string, state: LogState): void {
    const kept = this.load(id).events.slice(-this.maxEvents);
    const text = kept.map((e) => `${JSON.stringify(e)}\n`).join("");
    writeFileAtomic(this.file(id), text, this.durability === "fsync");
    state.count = kept.length;
    state.bytes = Buffer.byteLength(text);
  }

  private state(id: string): LogState {
    let state = this.states.get(id);
    // Another process may have appended since (the log is written by whoever drives the session).
    if (state && statSync(this.file(id), { throwIfNoEntry: false })?.size !== state.bytes) state = undefined;
    if (!state) {
      const { events, bytes } = this.load(id);
      state = { lastId: events.at(-1)?.id ?? 0, count: events.length, bytes };
      this.states.set(id, state);
    }
    return state;
  }

  /** Every whole record; a last line without its newline (a torn write) is left out. */
  private load(id: string): { events: StoredEvent[]; bytes: number } {
    const file = this.file(id);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { events: [], bytes: 0 };
      throw new ArborError("io_error", `Cannot read ${file}: ${(err as Error).message}`);
    }
    const events: StoredEvent[] = [];
    let bytes = 0;
    let start = 0;
    let line = 0;
    while (start < text.length) {
      const end = text.indexOf("\n", start);
      line++;
      if (end < 0) break; // torn tail: no newline yet
      const raw = text.slice(start, end);
      try {
        events.push(JSON.parse(raw) as StoredEvent);
      } catch {
        // Only a last line without its newline can be a torn write; a whole line that does not parse is damage.
        throw new ArborError("corrupt_session", `${file} line ${line} is not valid JSON; the event log was not changed.`, {
          file,
        });
      }
      bytes += Buffer.byteLength(raw) + 1;
      start = end + 1;
    }
    return { events, bytes };
  }
}
