import { createHash } from "node:crypto";

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,239}$/;
const ENTRY_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function digest(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/**
 * The Arbor session id of a session imported from `agent`: derived from the source's own id, so a
 * second import of the same session lands on the same id and is recognised. Ids Arbor cannot use as
 * they are (odd characters, too long) become a digest of themselves, still stable.
 */
export function importedSessionId(agent: string, sourceId: string): string {
  const candidate = `${agent}-${sourceId}`;
  if (SESSION_ID.test(candidate) && candidate.length <= 120) return candidate;
  return `${agent}-${digest(sourceId, 32)}`;
}

/** An entry id from a source id: kept when Arbor accepts it, else a stable digest of it. */
export function importedEntryId(sourceId: string): string {
  return ENTRY_ID.test(sourceId) ? sourceId : `h${digest(sourceId, 31)}`;
}

/** `YYYYMMDDHHmmss` of an ISO timestamp, for sub-trace ids that sort by launch time. */
export function launchStamp(iso: string): string {
  return iso.slice(0, 19).replace(/[-T:]/g, "");
}

/** `{parent}@delegate-{stamp}-{seq}`: the sub-trace id shape the trace views sort by launch. */
export function importedSubTraceId(parentId: string, startedAt: string, seq: number): string {
  return `${parentId}@delegate-${launchStamp(startedAt)}-${String(seq).padStart(3, "0")}`;
}
