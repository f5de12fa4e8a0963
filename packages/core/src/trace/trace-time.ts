/**
 * The message trace's timestamps: RFC 3339 with nanoseconds (the precision trace viewers sort on), e.g.
 * `2026-01-01T10:00:00.123000002Z`. Entries carry millisecond ISO timestamps, and several
 * entries can share a millisecond, so the six digits below the millisecond hold a tie-breaker: the
 * entry's rank among the entries before it on its path with the same timestamp. That rank depends
 * only on the entry's ancestors, which never change (append-only tree), so a message's timestamp is
 * the same on every read and on every branch that shares it, and no two entries of one path share
 * one. A cursor is therefore just a timestamp, and "strictly earlier" never skips nor repeats.
 */

const SUB_MS_DIGITS = 6;
/** A million entries appended in one millisecond of one path cannot happen through a store append. */
export const MAX_TIE_BREAK = 10 ** SUB_MS_DIGITS - 1;

/** `2026-01-01T00:00:00.123Z` with rank 2 → `2026-01-01T00:00:00.123000002Z`. */
export function traceTimestamp(iso: string, rank: number): string {
  const tie = Math.min(Math.max(0, Math.trunc(rank)), MAX_TIE_BREAK);
  return `${iso.slice(0, -1)}${String(tie).padStart(SUB_MS_DIGITS, "0")}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Nanoseconds since the epoch of an RFC 3339 timestamp (any fraction up to nanoseconds, `Z` or an
 * offset), or undefined when it is not one: calendar fields are checked, so `02-31` is refused
 * rather than rolled over into March.
 */
export function parseTraceTime(value: string): bigint | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const date = new Date(ms);
  if (
    date.getUTCFullYear() !== y ||
    date.getUTCMonth() !== mo - 1 ||
    date.getUTCDate() !== d ||
    date.getUTCHours() !== h ||
    date.getUTCMinutes() !== mi ||
    date.getUTCSeconds() !== s
  ) {
    return undefined;
  }
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const seconds = BigInt(ms / 1000 - offsetMinutes * 60);
  const fraction = BigInt((m[7] ?? "").padEnd(9, "0"));
  return seconds * 1_000_000_000n + fraction;
}
