import { z } from "zod";
import { ENTRY_ID_PATTERN, SESSION_ID_PATTERN } from "./id-format.js";

export { assertEntryId, assertSessionId } from "./id-format.js";

/** Session and entry ids reach file names and SQL keys: see `SESSION_ID_PATTERN` and `ENTRY_ID_PATTERN`. */
export const SessionIdSchema = z.string().regex(SESSION_ID_PATTERN, "invalid session id");
export const EntryIdSchema = z.string().regex(ENTRY_ID_PATTERN, "invalid entry id");

/** Each byte value as two lowercase hex digits: an id is made on every append. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** 16 lowercase hex characters (64 random bits) from the caller's random bytes, from `start` on. */
export function entryIdFromBytes(bytes: Uint8Array, start = 0): string {
  let out = "";
  for (let i = start; i < start + 8; i++) out += HEX_BYTE[bytes[i] ?? 0];
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
