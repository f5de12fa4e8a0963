import { StringDecoder } from "node:string_decoder";

export interface PageOptions {
  /** 1-based number of the first line to return. */
  offset: number;
  /** Most lines to return. */
  limit: number;
  /** Stop before the numbered output passes this many bytes (the tool output cap, so reads are never cut). */
  maxBytes: number;
  /** Longer lines are shortened; one minified line must not fill the whole page. */
  maxLineChars: number;
}

export interface Page {
  /** Numbered lines, ready for the model. */
  text: string;
  firstLine: number;
  /** Number of the last line returned (firstLine - 1 when none were). */
  lastLine: number;
  /** Lines exist after `lastLine`. */
  more: boolean;
  /** Known only when the source was read to its end. */
  totalLines: number | undefined;
}

/**
 * Pages through text arriving in chunks, numbering lines like `cat -n`. It stops reading as soon as
 * the page is full and one further line proves there is more, so reading the first page of a huge
 * file costs one page, not the file.
 */
export async function pageLines(chunks: AsyncIterable<Uint8Array | string>, options: PageOptions): Promise<Page> {
  const decoder = new StringDecoder("utf8");
  const out: string[] = [];
  let bytes = 0;
  let lineNo = 0;
  let pending = "";
  let full = false;
  let more = false;

  // Returns false once the page is full and another line has been seen.
  const take = (line: string): boolean => {
    lineNo++;
    if (lineNo < options.offset) return true;
    if (full) {
      more = true;
      return false;
    }
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    const shown =
      text.length > options.maxLineChars
        ? `${text.slice(0, options.maxLineChars)}… [line truncated, ${text.length} characters]`
        : text;
    const numbered = `${String(lineNo).padStart(6)}\t${shown}`;
    const size = Buffer.byteLength(numbered) + 1;
    if (out.length > 0 && bytes + size > options.maxBytes) {
      full = true;
      more = true;
      return false;
    }
    out.push(numbered);
    bytes += size;
    if (out.length >= options.limit) full = true;
    return true;
  };

  outer: for await (const chunk of chunks) {
    pending += typeof chunk === "string" ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    let start = 0;
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n", start)) {
      const keepGoing = take(pending.slice(start, nl));
      start = nl + 1;
      if (!keepGoing) break outer;
    }
    pending = pending.slice(start);
  }
  if (!more) {
    pending += decoder.end();
    if (pending.length > 0) take(pending);
  }
  const firstLine = options.offset;
  return {
    text: out.join("\n"),
    firstLine,
    lastLine: firstLine + out.length - 1,
    more,
    totalLines: more ? undefined : lineNo,
  };
}

/** One chunk, for text already in memory (blobs). */
export async function* single(text: Uint8Array | string): AsyncIterable<Uint8Array | string> {
  yield text;
}
