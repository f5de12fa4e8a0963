/**
 * Where an edit changed a file, for a diff with the file's own line numbers: each replaced
 * occurrence as whole lines with a few lines of context around it, before and after, and the line
 * each starts at in the old and the new file. A reader (the inspector) diffs `before` against
 * `after` and shifts the hunks to `oldLine` / `newLine`; the tool's arguments alone only give a
 * fragment with no place in the file.
 */
export interface EditRegion {
  /** 1-based line of the old file where `before` starts. */
  oldLine: number;
  /** 1-based line of the new file where `after` starts. */
  newLine: number;
  before: string;
  after: string;
}

/** Lines of context kept on each side, as `diff -U3` shows. */
const CONTEXT = 3;
/** Past this many occurrences (a replaceAll over a big file), the regions are left out. */
const MAX_REGIONS = 20;
/** Nor are regions kept whose text would bloat the stored result. */
const MAX_CHARS = 20_000;

/** The regions of replacing each `oldString` of `content` (found at `starts`) with `newString`. Pure. */
export function editRegions(content: string, oldString: string, newString: string, starts: readonly number[]): EditRegion[] {
  if (starts.length === 0 || starts.length > MAX_REGIONS) return [];
  const regions: EditRegion[] = [];
  let shift = 0;
  let chars = 0;
  for (const start of starts) {
    const end = start + oldString.length;
    let from = lineStart(content, start);
    for (let i = 0; i < CONTEXT && from > 0; i++) from = lineStart(content, from - 1);
    let to = lineEnd(content, end === start ? end : end - 1);
    for (let i = 0; i < CONTEXT && to < content.length; i++) to = lineEnd(content, to);
    const before = content.slice(from, to);
    const after = content.slice(from, start) + newString + content.slice(end, to);
    const oldLine = lineNumber(content, from);
    regions.push({ oldLine, newLine: oldLine + shift, before, after });
    shift += countLines(newString) - countLines(oldString);
    chars += before.length + after.length;
    if (chars > MAX_CHARS) return [];
  }
  return regions;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

/** Just past the line's newline (or the text's end). */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf("\n", at);
  return nl === -1 ? text.length : nl + 1;
}

function lineNumber(text: string, at: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
