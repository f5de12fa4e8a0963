import type { BlobStore } from "./blob-store.js";

/** A tool output over either limit is cut so one call cannot flood the context. */
export interface OutputLimits {
  maxLines: number;
  maxBytes: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = { maxLines: 2000, maxBytes: 50 * 1024 };

/**
 * Which end of a long output the model gets to see. Most tools lead with what matters (`head`);
 * commands usually end with it (the failing test, the error, the summary), so bash keeps the `tail`.
 */
export type KeepEnd = "head" | "tail";

export type CutOutput =
  | { cut: false; text: string }
  | {
      cut: true;
      keep: KeepEnd;
      /** The part kept: whole lines, except when the one line at that end alone is over the byte limit. */
      text: string;
      keptLines: number;
      totalLines: number;
      keptBytes: number;
      totalBytes: number;
    };

/**
 * Keeps one end of `text` within `limits` (pure). Cuts fall between lines so the model can page to
 * the rest with a line offset; only a single line longer than the byte limit is cut inside, at a
 * UTF-8 character boundary.
 */
export function cutOutput(text: string, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS, keep: KeepEnd = "head"): CutOutput {
  const totalBytes = Buffer.byteLength(text);
  const totalLines = countLines(text);
  if (totalBytes <= limits.maxBytes && totalLines <= limits.maxLines) return { cut: false, text };
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const base = { cut: true as const, keep, totalLines, totalBytes };

  let bytes = 0;
  let lines = 0;
  if (keep === "head") {
    let end = 0; // index just past the last kept line's text
    for (let start = 0; lines < limits.maxLines && start <= body.length; ) {
      const newline = body.indexOf("\n", start);
      const lineEnd = newline === -1 ? body.length : newline;
      const lineBytes = Buffer.byteLength(body.slice(start, lineEnd)) + (lines > 0 ? 1 : 0);
      if (bytes + lineBytes > limits.maxBytes) break;
      bytes += lineBytes;
      lines++;
      end = lineEnd;
      if (newline === -1) break;
      start = newline + 1;
    }
    if (lines === 0) {
      const head = utf8Slice(body, 0, limits.maxBytes);
      return { ...base, text: head, keptLines: 0, keptBytes: Buffer.byteLength(head) };
    }
    return { ...base, text: body.slice(0, end), keptLines: lines, keptBytes: bytes };
  }

  let start = body.length; // index of the first kept line's text
  for (let end = body.length; lines < limits.maxLines && end >= 0; ) {
    const newline = end === 0 ? -1 : body.lastIndexOf("\n", end - 1);
    const lineStart = newline === -1 ? 0 : newline + 1;
    const lineBytes = Buffer.byteLength(body.slice(lineStart, end)) + (lines > 0 ? 1 : 0);
    if (bytes + lineBytes > limits.maxBytes) break;
    bytes += lineBytes;
    lines++;
    start = lineStart;
    if (newline === -1) break;
    end = newline;
  }
  if (lines === 0) {
    const tail = utf8Slice(body, Buffer.byteLength(body) - limits.maxBytes, Buffer.byteLength(body));
    return { ...base, text: tail, keptLines: 0, keptBytes: Buffer.byteLength(tail) };
  }
  return { ...base, text: body.slice(start), keptLines: lines, keptBytes: bytes };
}

/** Bytes [from, to) of the UTF-8 encoding, dropping a character the cut would split. */
function utf8Slice(text: string, from: number, to: number): string {
  return Buffer.from(text)
    .subarray(from, to)
    .toString("utf8")
    .replace(/^\uFFFD+|\uFFFD+$/g, "");
}

/** Lines as a reader counts them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count - 1 : count;
}

/** The path the `read` tool accepts for a blob: `blob:<ref>`. */
export function blobPath(ref: string): string {
  return `blob:${ref}`;
}

/**
 * The note telling the model where the rest is and how to page to it: after the text for a head,
 * before it for a tail, so the text reads in order either way.
 */
export function truncationNote(cut: Extract<CutOutput, { cut: true }>, ref: string): string {
  const sizes = `${cut.keptLines} of ${cut.totalLines} lines (${cut.keptBytes} of ${cut.totalBytes} bytes)`;
  const narrow = "Prefer narrowing the command (grep, head, tail) to reading it all.";
  if (cut.keep === "head") {
    return (
      `[Output truncated: showed the first ${sizes}. The full output is saved; to see the rest call the read tool ` +
      `with path "${blobPath(ref)}" and offset ${cut.keptLines + 1} (add limit to read less). ${narrow}]`
    );
  }
  const hidden = Math.max(1, cut.totalLines - cut.keptLines);
  return (
    `[Output truncated: showing the last ${sizes}. The full output is saved; to see the lines before, call the read ` +
    `tool with path "${blobPath(ref)}" and offset 1 (limit ${hidden} covers them). ${narrow}]`
  );
}

/** Applies the cut and the note, without storing anything (pure). */
export function renderCut(cut: Extract<CutOutput, { cut: true }>, ref: string): string {
  const note = truncationNote(cut, ref);
  return cut.keep === "head" ? `${cut.text}\n\n${note}` : `${note}\n\n${cut.text}`;
}

/**
 * Cuts `output` when over the limits and stores the whole text in `blobs`, returning the text the
 * model sees and the ref of the full output (undefined when nothing was cut).
 */
export async function capOutput(
  output: string,
  blobs: BlobStore,
  limits: OutputLimits = DEFAULT_OUTPUT_LIMITS,
  keep: KeepEnd = "head",
): Promise<{ output: string; fullOutputRef?: string }> {
  const cut = cutOutput(output, limits, keep);
  if (!cut.cut) return { output };
  const ref = await blobs.put(output);
  return { output: renderCut(cut, ref), fullOutputRef: ref };
}
