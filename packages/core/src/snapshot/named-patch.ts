/**
 * The patch of a tree built from named files (`treeWithFiles`), written here from the blobs it just
 * replaced and the bytes it just stored, in the form `git diff-tree -p` prints: a step that wrote
 * three files then starts no git at all (each process costs a snapshot several milliseconds). Only
 * the plain case is taken: UTF-8 text without carriage returns, at paths git prints unquoted, whose
 * old blob is stored loose. Anything else returns undefined and git writes the patch, so a reader
 * never sees a diff git would have written differently in kind (binary, quoted, CRLF). The hunks are
 * Myers' like git's; where two placements are equally short, git's heuristics may pick the other one.
 *
 * Run by the git runner's child as well (see git-runner-child.ts), from sources in tests: builtins
 * and `diff` only (a sibling's `.js` name does not resolve there), and only erasable type syntax.
 */
import { structuredPatch } from "diff";
import type { LooseObjects } from "./loose-objects.js";
import type { FilePatch } from "./snapshot-entry.js";

/** One file `treeWithFiles` changed: its entry in the base tree and what replaced it (null: deleted). */
export interface FileChange {
  /** Workspace-relative, `/`-separated. */
  path: string;
  before: { mode: string; id: string };
  after: { mode: string; id: string; content: Buffer } | null;
}

/** A diff longer than this is cut: the patch is for a reader, the snapshot itself keeps every byte. */
const MAX_DIFF_CHARS = 20_000;
/** Files past this many are listed without their diff, so one huge step cannot bloat the journal. */
export const MAX_DIFFED_FILES = 200;
/** git's lines of context around a change, and its limit on the function name after `@@`. */
const CONTEXT = 3;
const FUNC_BYTES = 80;
/** git calls a file binary when a NUL is among its first bytes, this many. */
const BINARY_PROBE = 8000;
/** A file whose diff takes longer than this is git's: it is faster there, and this may run in a server. */
const DIFF_TIMEOUT_MS = 50;
const ZERO_ID = "0000000";
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The patch of `changes`, in git's path order; undefined when git must write it. */
export function patchOfChanges(objects: LooseObjects, changes: readonly FileChange[]): FilePatch[] | undefined {
  const sorted = [...changes].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const files: FilePatch[] = [];
  for (const [i, change] of sorted.entries()) {
    if (!plainPath(change.path)) return undefined;
    const status = change.after ? "modified" : "deleted";
    if (i >= MAX_DIFFED_FILES) {
      files.push({ path: change.path, status, diff: "" });
      continue;
    }
    const diff = fileDiff(objects, change);
    if (diff === undefined) return undefined;
    files.push({ path: change.path, status, diff: capDiff(diff) });
  }
  return files;
}

/** `diff`, cut to what a patch entry keeps of one file (git's diffs too). */
export function capDiff(diff: string): string {
  return diff.length <= MAX_DIFF_CHARS ? diff : `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS} characters)`;
}

/** Whether git prints `path` as it is: no control character, quote or backslash (core.quotepath is off). */
function plainPath(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** One file's section of the patch, without its last newline, as git writes it. */
function fileDiff(objects: LooseObjects, change: FileChange): string | undefined {
  const { path, before, after } = change;
  const old = objects.blob(before.id);
  if (old === undefined) return undefined;
  const oldText = text(old);
  const newText = after ? text(after.content) : "";
  if (oldText === undefined || newText === undefined) return undefined;
  const head = [`diff --git a/${path} b/${path}`];
  const sameContent = after !== null && after.id === before.id;
  if (!after) head.push(`deleted file mode ${before.mode}`, `index ${short(before.id)}..${ZERO_ID}`);
  else if (after.mode !== before.mode) {
    head.push(`old mode ${before.mode}`, `new mode ${after.mode}`);
    if (!sameContent) head.push(`index ${short(before.id)}..${short(after.id)}`);
  } else head.push(`index ${short(before.id)}..${short(after.id)} ${after.mode}`);
  if (sameContent || (oldText === "" && newText === "")) return head.join("\n");
  const hunks = hunksOf(oldText, newText);
  if (hunks === undefined) return undefined;
  // git ends a name holding a space with a tab here, so patch(1) reads the whole of it.
  const tab = path.includes(" ") ? "\t" : "";
  head.push(`--- a/${path}${tab}`, after ? `+++ b/${path}${tab}` : "+++ /dev/null");
  return [...head, ...hunks].join("\n");
}

/** The file's text when git would diff it as text here; undefined for binary, CRLF or non-UTF-8 bytes. */
function text(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, BINARY_PROBE).includes(0)) return undefined;
  if (bytes.includes(0x0d)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function short(id: string): string {
  return id.slice(0, 7);
}

/** The hunks' lines, each headed as git heads it: counts of 1 left out, and the function line it is in. */
function hunksOf(oldText: string, newText: string): string[] | undefined {
  const patch = structuredPatch("a", "b", oldText, newText, "", "", { context: CONTEXT, timeout: DIFF_TIMEOUT_MS });
  if (!patch) return undefined;
  const oldLines = oldText.split("\n");
  const out: string[] = [];
  let func = "";
  /** Lines above this were searched for the previous hunk: git looks no further up for the next. */
  let searchedTo = -1;
  for (const hunk of patch.hunks) {
    // git looks up from the line above the hunk, stopping where the last search began, and keeps the
    // last name it found when this search finds none.
    const first = hunk.oldStart - 1;
    for (let l = first - 1; l > searchedTo; l--) {
      const name = funcName(oldLines[l]!);
      if (name !== undefined) {
        func = name;
        break;
      }
    }
    searchedTo = first - 1;
    const range = (start: number, count: number) => `${count === 0 ? start - 1 : start}${count === 1 ? "" : `,${count}`}`;
    out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@${func ? ` ${func}` : ""}`);
    out.push(...hunk.lines);
  }
  return out;
}

/**
 * git's default function line: one that starts with a letter, `_` or `$`, cut to 80 bytes and then
 * rid of trailing white space. Undefined for any other line.
 */
function funcName(line: string): string | undefined {
  if (!/^[A-Za-z_$]/.test(line)) return undefined;
  // git's record holds the newline, which counts toward the 80 bytes before it is trimmed.
  const bytes = Buffer.from(`${line}\n`).subarray(0, FUNC_BYTES);
  let end = bytes.length;
  while (end > 0 && [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d].includes(bytes[end - 1]!)) end--;
  return bytes.subarray(0, end).toString("utf8");
}
