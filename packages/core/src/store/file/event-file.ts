import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import { type CheckedEvent, type EventWindow, inEventWindow, PURGED_EVENT_DATA, type StoredEvent } from "../event-records.js";
import type { Durability } from "../spec.js";
import { writeFileAtomic } from "./atomic-write.js";
import { lastEventIdOf, readEventsAfter } from "./event-file-reader.js";
import { writeEventLines } from "./event-lines.js";

export const EVENTS_FILE = "events.jsonl";

interface LogState {
  lastId: number;
  /** Records in the file. */
  count: number;
  /** Bytes of whole records; a torn tail past it is cut off before the next append. */
  bytes: number;
  /**
   * The lease under which this state was checked against the file: while this store still holds that
   * lease no other process writes the log, so the state is trusted without a stat and the append
   * handle stays open. Undefined when checked without the lease.
   */
  trustedUnder?: string;
  /** The open append handle, kept only while `trustedUnder` is the live lease. */
  fd?: number;
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
    /** The token of this store's live lease on the session, undefined when it holds none. */
    private readonly leaseToken: (id: string) => string | undefined,
    /** Where an append's lines are encoded on their way to the file: the store's encode buffer (record-buffer.ts). */
    private readonly out: Buffer,
  ) {}

  private file(id: string): string {
    return join(this.sessionsRoot, id, EVENTS_FILE);
  }

  /** Drops what is known of a session's log (after it was deleted). */
  forget(id: string): void {
    const state = this.states.get(id);
    if (state) this.untrust(state);
    this.states.delete(id);
  }

  /** The store's lease on the session ended: another process may write the log from now on. */
  leaseEnded(id: string): void {
    const state = this.states.get(id);
    if (state) this.untrust(state);
  }

  /** Closes every append handle (closing the store). */
  closeAll(): void {
    for (const state of this.states.values()) this.untrust(state);
  }

  private untrust(state: LogState): void {
    state.trustedUnder = undefined;
    if (state.fd !== undefined) closeSync(state.fd);
    state.fd = undefined;
  }

  /** Up to `limit` records after `after`, oldest first, read from the file itself (another process may have appended). */
  page(id: string, after: number, limit: number): StoredEvent[] {
    return readEventsAfter(this.file(id), after, limit);
  }

  /** The newest record's id in the file, 0 for an empty log. */
  newestId(id: string): number {
    return lastEventIdOf(this.file(id));
  }

  /**
   * A session directory this store has just created holds no log yet. Created under this store's
   * lease (a run's session), the empty state is trusted as checked under it: no other process writes
   * the log while the lease lasts, so the first append neither reads nor stats the file.
   */
  created(id: string): void {
    this.forget(id);
    this.states.set(id, { lastId: 0, count: 0, bytes: 0, trustedUnder: this.leaseToken(id) });
  }

  /**
   * Appends the records `number` makes from the log's last id (one look at the log's state serves
   * both). `checked` is the batch as `checkEventInputs` gave it, one for each record: its data's JSON
   * is written. Returns the records.
   */
  append(id: string, checked: readonly CheckedEvent[], number: (lastId: number) => StoredEvent[]): StoredEvent[] {
    const state = this.state(id);
    const events = number(state.lastId);
    if (events.length === 0) return events;
    const file = this.file(id);
    // Under the lease the handle stays open (one write per append): nobody else appends meanwhile.
    const keep = state.trustedUnder !== undefined;
    let fd: number;
    try {
      fd = state.fd ?? openSync(file, "a");
    } catch (err) {
      throw new ArborError("io_error", `Cannot open ${file}: ${(err as Error).message}`);
    }
    let bytes = 0;
    try {
      // A torn record from a crash: cut it off so the new records start on a line of their own. A
      // trusted state's size is the file's (a failed write of ours is cut back below).
      if (!keep && fstatSync(fd).size > state.bytes) ftruncateSync(fd, state.bytes);
      bytes = writeEventLines(fd, this.out, events, checked);
      if (this.durability === "fsync") fsyncSync(fd);
    } catch (err) {
      if (keep) this.cutBack(fd, state);
      else closeSync(fd);
      throw new ArborError("io_error", `Cannot append to ${file}: ${(err as Error).message}`);
    }
    if (keep) state.fd = fd;
    else closeSync(fd);
    state.bytes += bytes;
    state.count += events.length;
    state.lastId = (events[events.length - 1] as StoredEvent).id;
    if (state.count > this.maxEvents + Math.ceil(this.maxEvents / 10)) this.trim(id, state);
    return events;
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
    // The rename replaces the file: a handle kept open under the lease would write to the old one.
    const state = this.states.get(id);
    if (state) this.untrust(state);
    writeFileAtomic(this.file(id), text, true);
    this.states.delete(id);
    return n;
  }

  /** After a failed write under the lease: the partial record goes, and the state is checked afresh next time. */
  private cutBack(fd: number, state: LogState): void {
    try {
      ftruncateSync(fd, state.bytes);
    } catch {
      // The next append's size check cuts off what could not be removed here.
    }
    this.untrust(state);
    if (state.fd !== fd) closeSync(fd);
  }

  private trim(id: string, state: LogState): void {
    const kept = this.load(id).events.slice(-this.maxEvents);
    const text = kept.map((e) => `${JSON.stringify(e)}\n`).join("");
    // The rename replaces the file: a handle kept open would write to the old one.
    const trusted = state.trustedUnder;
    this.untrust(state);
    writeFileAtomic(this.file(id), text, this.durability === "fsync");
    state.trustedUnder = trusted;
    state.count = kept.length;
    state.bytes = Buffer.byteLength(text);
  }

  private state(id: string): LogState {
    const token = this.leaseToken(id);
    let state = this.states.get(id);
    if (state && token !== undefined && state.trustedUnder === token) return state;
    if (state) this.untrust(state);
    // Another process may have appended since (the log is written by whoever drives the session).
    // No file is an empty log (a new session's, before its first append).
    if (state && (statSync(this.file(id), { throwIfNoEntry: false })?.size ?? 0) !== state.bytes) state = undefined;
    if (!state) {
      const { events, bytes } = this.load(id);
      state = { lastId: events.at(-1)?.id ?? 0, count: events.length, bytes };
      this.states.set(id, state);
    }
    state.trustedUnder = token;
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
