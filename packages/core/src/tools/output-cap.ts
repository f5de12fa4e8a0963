import type { BlobStore } from "./blob-store.js";

/** SPEC 12: a tool output over either limit is cut so one call cannot flood the context. */
export interface OutputLimits {
  maxLines: number;
  maxBytes: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = { maxLines: 2000, maxBytes: 50 * 1024 };

export type CutOutput =
  | { cut: false; text: string }
  | {
      cut: true;
      /** The head that is kept, whole lines except when the first line alone is over the byte limit. */
      text: string;
      keptLines: number;
      totalLines: number;
      keptBytes: number;
      totalBytes: number;
    };

/**
 * Keeps the head of `text` within `limits` (pure). Cuts fall on line ends so the model can page on
 * with a line offset; only a single line longer than the byte limit is cut inside, at a UTF-8
 * character boundary.
 */
export function cutOutput(text: string, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS): CutOutput {
  const totalBytes = Buffer.byteLength(text);
  const totalLines = countLines(text);
  if (totalBytes <= limits.maxBytes && totalLines <= limits.maxLines) return { cut: false, text };

  let end = 0;
  let bytes = 0;
  let lines = 0;
  while (lines < limits.maxLines && end < text.length) {
    const newline = text.indexOf("\n", end);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const lineBytes = Buffer.byteLength(text.slice(end, lineEnd));
    if (bytes + lineBytes > limits.maxBytes) break;
    bytes += lineBytes;
    end = lineEnd;
    lines++;
  }
  if (lines === 0) {
    // One giant first line: keep what fits, without splitting a multi-byte character.
    const head = Buffer.from(text)
      .subarray(0, limits.maxBytes)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    return { cut: true, text: head, keptLines: 0, totalLines, keptBytes: Buffer.byteLength(head), totalBytes };
  }
  const head = text.slice(0, end).replace(/\n$/, "");
  return { cut: true, text: head, keptLines: lines, totalLines, keptBytes: bytes, totalBytes };
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

/** The note appended to a cut output, telling the model where the rest is and how to page to it. */
export function truncationNote(cut: Extract<CutOutput, { cut: true }>, ref: string): string {
  const next = cut.keptLines + 1;
  return (
    `\n\n[Output truncated: showed ${cut.keptLines} of ${cut.totalLines} lines (${cut.keptBytes} of ${cut.totalBytes} bytes). ` +
    `The full output is saved; to see the rest call the read tool with path "${blobPath(ref)}" and offset ${next} ` +
    `(add limit to read less). Prefer narrowing the command (grep, head, tail) to reading it all.]`
  );
}

/**
 * Cuts `output` when over the limits and stores the whole text in `blobs`, returning the text the
 * model sees and the ref of the full output (undefined when nothing was cut).
 */
export async function capOutput(
  output: string,
  blobs: BlobStore,
  limits: OutputLimits = DEFAULT_OUTPUT_LIMITS,
): Promise<{ output: string; fullOutputRef?: string }> {
  const cut = cutOutput(output, limits);
  if (!cut.cut) return { output };
  const ref = await blobs.put(output);
  return { output: cut.text + truncationNote(cut, ref), fullOutputRef: ref };
}
