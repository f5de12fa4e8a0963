import { z } from "zod";
import { ArborError } from "../errors.js";

/**
 * Session ids reach file names and SQL keys, so they are restricted to a safe alphabet. `@` and `.`
 * are allowed because sub-trace ids are `{parentId}@{mode}-{YYYYMMDDHHmmss}-{seq}`; a leading
 * alphanumeric rules out `.`/`..`. 240 characters leaves room for several levels of nesting while
 * staying under the 255-byte file-name limit.
 */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,239}$/;
const ENTRY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const SessionIdSchema = z.string().regex(SESSION_ID_PATTERN, "invalid session id");
export const EntryIdSchema = z.string().regex(ENTRY_ID_PATTERN, "invalid entry id");

function describe(value: unknown): string {
  if (typeof value !== "string") return `a ${typeof value}`;
  if (value.length === 0) return "an empty string";
  if (value.length > 80) return `a ${value.length}-character string`;
  return JSON.stringify(value);
}

export function assertSessionId(value: unknown): asserts value is string {
  if (typeof value !== "string" || !SESSION_ID_PATTERN.test(value)) {
    throw new ArborError(
      "invalid_id",
      `Session id ${describe(value)} is not valid: use 1-240 characters from A-Z a-z 0-9 @ . _ - starting with a letter or digit.`,
    );
  }
}

export function assertEntryId(value: unknown): asserts value is string {
  if (typeof value !== "string" || !ENTRY_ID_PATTERN.test(value)) {
    throw new ArborError(
      "invalid_id",
      `Entry id ${describe(value)} is not valid: use 1-64 characters from A-Z a-z 0-9 _ - starting with a letter or digit.`,
    );
  }
}

/** Each byte value as two lowercase hex digits: an id is made on every append. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** 16 lowercase hex characters (64 random bits) from the caller's random bytes. */
export function entryIdFromBytes(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < 8; i++) out += HEX_BYTE[bytes[i] ?? 0];
  return out;
}

export type SubTraceMode = "call" | "agent" | "explore" | "delegate";

/**
 * `{parentId}@{mode}-{YYYYMMDDHHmmss}-{seq}`; `seq` counts up within one parent, mode and second
 * (the caller keeps the counter) and is written with at least three digits.
 */
export function subTraceId(parentId: string, mode: string, at: Date, seq: number): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const stamp = `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}`;
  return `${parentId}@${mode}-${stamp}-${p(seq, 3)}`;
}

/** The direct parent of a sub-trace id (text before the last `@`), or undefined for a root. */
export function parentTraceId(id: string): string | undefined {
  const at = id.lastIndexOf("@");
  return at < 0 ? undefined : id.slice(0, at);
}

/** How many sub-agent levels below its root a trace is: 0 for a root, 1 for its sub-traces, … */
export function traceDepth(id: string): number {
  let depth = 0;
  for (const ch of id) if (ch === "@") depth++;
  return depth;
}

/** The root trace of any trace id (text before the first `@`). */
export function rootTraceId(id: string): string {
  const at = id.indexOf("@");
  return at < 0 ? id : id.slice(0, at);
}
