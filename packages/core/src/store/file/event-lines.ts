import { writeSync } from "node:fs";
import type { CheckedEvent, StoredEvent } from "../event-records.js";

/**
 * Bytes of the buffer a store encodes event lines into: a batch goes to the file in writes of this
 * size at most, each of whole lines. Written as strings, a batch's lines were first concatenated and
 * then flattened by the encoder (a full copy of the batch's text each append, in V8's large-object
 * space past a few hundred KB); each line's parts are now encoded straight into this buffer.
 */
export const EVENT_BUFFER_BYTES = 96 * 1024;

/** Most bytes `text` can take as UTF-8: 3 a UTF-16 code unit (a surrogate pair is 4 bytes for 2 units). */
function mostBytes(text: string): number {
  return text.length * 3;
}

/** Writes `length` bytes of `buf` at the file's end, however many calls the OS takes for it. */
function writeAll(fd: number, buf: Buffer, length: number): void {
  for (let at = 0; at < length; ) at += writeSync(fd, buf, at, length - at);
}

/** `{"id":…,"data":` of a record line, `data` and `}\n` go after it: the text `JSON.stringify(record)` starts with. */
function lineHead(e: StoredEvent, typeJson: string, timestampJson: string): string {
  return `{"id":${e.id},"type":${typeJson},"timestamp":${timestampJson},"data":`;
}

/** Encodes `head`, the data's JSON and the line's end into `buf` at `at`; returns where the line ends. */
function encodeLine(buf: Buffer, at: number, head: string, dataJson: string): number {
  let end = at + buf.write(head, at);
  end += buf.write(dataJson, end);
  buf[end] = 0x7d; // }
  buf[end + 1] = 0x0a; // \n
  return end + 2;
}

/**
 * Appends the JSON lines of a batch of stored events to `fd` (each record as `JSON.stringify` gives
 * it, then a newline), encoded through `out`; returns the bytes written. `checked[i].dataJson` is
 * `events[i]`'s data as JSON, made when the batch was checked; the type and the time, which repeat
 * along a batch, are quoted once each. Every write holds whole lines: a crash between two leaves the
 * batch's first events logged, as an earlier, smaller batch would have, and one torn in a write is the
 * torn last line a reader ignores and the next append cuts off. A line that may not fit the buffer
 * is written on its own.
 */
export function writeEventLines(
  fd: number,
  out: Buffer,
  events: readonly StoredEvent[],
  checked: readonly CheckedEvent[],
): number {
  let written = 0;
  let used = 0;
  let type: string | undefined;
  let typeJson = "";
  let timestamp: string | undefined;
  let timestampJson = "";
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as StoredEvent;
    const dataJson = (checked[i] as CheckedEvent).dataJson;
    if (e.type !== type) {
      type = e.type;
      typeJson = JSON.stringify(type);
    }
    if (e.timestamp !== timestamp) {
      timestamp = e.timestamp;
      timestampJson = JSON.stringify(timestamp);
    }
    const head = lineHead(e, typeJson, timestampJson);
    const most = mostBytes(head) + mostBytes(dataJson) + 2;
    if (used > 0 && used + most > out.length) {
      writeAll(fd, out, used);
      written += used;
      used = 0;
    }
    if (most <= out.length) {
      used = encodeLine(out, used, head, dataJson);
      continue;
    }
    // Measured only now: most lines fit the buffer by the bound alone.
    const exact = Buffer.byteLength(head) + Buffer.byteLength(dataJson) + 2;
    const own = exact <= out.length ? out : Buffer.allocUnsafe(exact);
    writeAll(fd, own, encodeLine(own, 0, head, dataJson));
    written += exact;
  }
  if (used > 0) {
    writeAll(fd, out, used);
    written += used;
  }
  return written;
}
