import { writeSync } from "node:fs";
import type { CheckedEvent, StoredEvent } from "../event-records.js";

/** Most bytes `text` can take as UTF-8: 3 a UTF-16 code unit (a surrogate pair is 4 bytes for 2 units). */
function mostBytes(text: string): number {
  return text.length * 3;
}

/** Writes `length` bytes of `buf` at the file's end, however many calls the OS takes for it. */
function writeAll(fd: number, buf: Buffer, length: number): void {
  for (let at = 0; at < length; ) at += writeSync(fd, buf, at, length - at);
}

/** Whether `id` is written digit by digit: what `numberEvents` gives (a non-negative safe integer, at most 16 digits). */
function plainId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 0;
}

/** Most bytes `id` takes in a line (the text `${id}` gives, as before, for one that is not plain). */
function idRoom(id: number): number {
  return plainId(id) ? 16 : mostBytes(`${id}`);
}

/** Writes `id` into `buf` at `at`; returns where it ends. */
function writeId(buf: Buffer, at: number, id: number): number {
  if (!plainId(id)) return at + buf.write(`${id}`, at);
  let end = at + 1;
  for (let rest = id; rest >= 10; rest = Math.floor(rest / 10)) end++;
  for (let i = end - 1, rest = id; i >= at; i--, rest = Math.floor(rest / 10)) buf[i] = 0x30 + (rest % 10);
  return end;
}

/** `{"id":` */
const ID_OPEN = [0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a] as const;

/**
 * Encodes one record line into `buf` at `at` (room checked by the caller); returns where it ends: the
 * text `JSON.stringify(record)` gives, `{"id":…` then `mid` (its type, time and the `"data":` key)
 * and the data's JSON, then a newline. The id is encoded digit by digit: a line's head made as one
 * string was a string of its own, and a flattening, for every event.
 */
function encodeLine(buf: Buffer, at: number, id: number, mid: string, dataJson: string): number {
  let end = at;
  for (const byte of ID_OPEN) buf[end++] = byte;
  end = writeId(buf, end, id);
  end += buf.write(mid, end);
  end += buf.write(dataJson, end);
  buf[end] = 0x7d; // }
  buf[end + 1] = 0x0a; // \n
  return end + 2;
}

/** Bytes of a line besides its id, `mid` and the data: `{"id":`, `}` and the newline. */
const LINE_EXTRA = ID_OPEN.length + 2;

/**
 * Appends the JSON lines of a batch of stored events to `fd` (each record as `JSON.stringify` gives
 * it, then a newline), encoded through `out`; returns the bytes written. `checked[i].dataJson` is
 * `events[i]`'s data as JSON, made when the batch was checked; the type and the time, which repeat
 * along a batch, are quoted once each. Every write holds whole lines: a crash between two leaves the
 * batch's first events logged, as an earlier, smaller batch would have, and one torn in a write is the
 * torn last line a reader ignores and the next append cuts off. A line that may not fit the buffer
 * is written on its own.
 *
 * `out` is the store's encode buffer (record-buffer.ts): a batch goes to the file in writes of its
 * size at most. Written as strings, a batch's lines were first concatenated and then flattened by the
 * encoder (a full copy of the batch's text each append, in V8's large-object space past a few hundred
 * KB); each line's parts are encoded straight into the buffer instead.
 */
export function writeEventLines(
  fd: number,
  out: Buffer,
  events: readonly StoredEvent[],
  checked: readonly CheckedEvent[],
): number {
  let written = 0;
  let used = 0;
  // A batch's events alternate among a few types and share one time: each type's middle part
  // (`,"type":…,"timestamp":…,"data":`) is made once for the batch, not once a line.
  const mids = new Map<string, string>();
  let timestamp: string | undefined;
  let timestampJson = "";
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as StoredEvent;
    const dataJson = (checked[i] as CheckedEvent).dataJson;
    if (e.timestamp !== timestamp) {
      timestamp = e.timestamp;
      timestampJson = JSON.stringify(timestamp);
      mids.clear();
    }
    let mid = mids.get(e.type);
    if (mid === undefined) {
      mid = `,"type":${JSON.stringify(e.type)},"timestamp":${timestampJson},"data":`;
      mids.set(e.type, mid);
    }
    const most = LINE_EXTRA + idRoom(e.id) + mostBytes(mid) + mostBytes(dataJson);
    if (used > 0 && used + most > out.length) {
      writeAll(fd, out, used);
      written += used;
      used = 0;
    }
    if (most <= out.length) {
      used = encodeLine(out, used, e.id, mid, dataJson);
      continue;
    }
    // Measured only now: most lines fit the buffer by the bound alone.
    const room = LINE_EXTRA + idRoom(e.id) + Buffer.byteLength(mid) + Buffer.byteLength(dataJson);
    const own = room <= out.length ? out : Buffer.allocUnsafe(room);
    const end = encodeLine(own, 0, e.id, mid, dataJson);
    writeAll(fd, own, end);
    written += end;
  }
  if (used > 0) {
    writeAll(fd, out, used);
    written += used;
  }
  return written;
}
