/**
 * A server-sent events parser for streams read with fetch (EventSource cannot POST, nor send a
 * bearer token). It follows the HTML spec's field rules for the parts the run stream uses:
 * `id:`, `data:` (joined with newlines), `event:`, comments, and any of CRLF, LF or CR line ends.
 */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private id: string | undefined;
  private event: string | undefined;

  /** Feeds a decoded chunk; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\n|\r/.exec(this.buffer);
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (!match || (match[0] === "\r" && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = undefined;
        return undefined;
      }
      const message: SseMessage = { data: this.data.join("\n") };
      if (this.id !== undefined) message.id = this.id;
      if (this.event !== undefined) message.event = this.event;
      this.data = [];
      this.event = undefined;
      return message;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "event") this.event = value;
    return undefined;
  }
}
