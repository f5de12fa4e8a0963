/**
 * Where the file store encodes what it appends to entries.jsonl before the one `write` that hands it
 * to the OS. Written as a JS string, a record was measured first (a pass over it for its byte length),
 * then encoded into memory Node allocated for that write, then measured again per entry for the
 * index; a batch of entries was also concatenated into one string first. Here each record is encoded
 * once, into a buffer the store keeps, and the encoder says where each record ends.
 */

/**
 * Bytes of the one buffer a file store encodes into, for entries.jsonl here and for the event log
 * (event-lines.ts): room for an ordinary step's records (a few KB) and far more; larger records get a
 * buffer of their own, and an event batch goes to its file in writes of this size at most. Both use it
 * only within a synchronous write, so one buffer serves both.
 */
export const ENCODE_BUFFER_BYTES = 256 * 1024;

export class RecordBuffer {
  /** `kept`: the store's encode buffer (ENCODE_BUFFER_BYTES), shared with its event log. */
  constructor(private readonly kept: Buffer) {}

  /**
   * Encodes `head` then each of `lines` followed by a newline, one after another. Returns the buffer
   * (valid until the next call) and the byte offset where `head` ends and where each line ends.
   */
  encode(head: string, lines: readonly string[]): { bytes: Buffer; headEnd: number; ends: number[] } {
    // A UTF-16 code unit is at most 3 bytes of UTF-8, a newline 1: only a bound this large can overflow.
    let bound = head.length * 3;
    for (const line of lines) bound += line.length * 3 + 1;
    const bytes = bound <= this.kept.length ? this.kept : Buffer.allocUnsafe(exactBytes(head, lines));
    let at = head.length === 0 ? 0 : bytes.write(head, 0);
    const headEnd = at;
    const ends: number[] = new Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      at += bytes.write(lines[i] as string, at);
      bytes[at++] = 0x0a;
      ends[i] = at;
    }
    return { bytes, headEnd, ends };
  }
}

function exactBytes(head: string, lines: readonly string[]): number {
  let n = Buffer.byteLength(head);
  for (const line of lines) n += Buffer.byteLength(line) + 1;
  return n;
}
