import { randomFillSync } from "node:crypto";
import { entryIdFromBytes } from "../model/ids.js";

/**
 * Random bytes drawn from a buffer refilled 4 KB at a time: an entry id needs 8 bytes, and asking
 * the OS-backed generator for each one cost about 5% of a loop step. One pool per store instance.
 */
export class RandomPool {
  private readonly buffer = Buffer.allocUnsafe(4096);
  private offset = this.buffer.length;

  bytes = (n: number): Uint8Array => {
    if (n > this.buffer.length) return randomFillSync(Buffer.allocUnsafe(n));
    if (this.offset + n > this.buffer.length) {
      randomFillSync(this.buffer);
      this.offset = 0;
    }
    const out = this.buffer.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  };

  /** A new entry id, read from the pool in place: no view of the buffer is made for its 8 bytes. */
  entryId = (): string => {
    if (this.offset + 8 > this.buffer.length) {
      randomFillSync(this.buffer);
      this.offset = 0;
    }
    const id = entryIdFromBytes(this.buffer, this.offset);
    this.offset += 8;
    return id;
  };
}
