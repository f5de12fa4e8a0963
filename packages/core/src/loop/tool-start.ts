import type { Entry } from "../model/entry.js";

/**
 * The `custom` entry a run writes, through the journal, just before a call of a tool with effects
 * starts: after a crash it tells a call that may have done its work from one that never began, and it
 * keeps the key the call was given so a repeat can pass the same one. A `none` tool gets no record.
 */
export const TOOL_STARTED_ENTRY_TYPE = "tool_started";

export interface ToolStarted {
  callId: string;
  tool: string;
  idempotencyKey: string;
}

/** A key unique to one call of one session, the same however often it is worked out. */
export function idempotencyKeyOf(sessionId: string, callId: string): string {
  return `arbor:${sessionId}:${callId}`;
}

function startedRecord(entry: Entry): ToolStarted | undefined {
  if (entry.type !== "custom" || entry.customType !== TOOL_STARTED_ENTRY_TYPE) return undefined;
  const data = entry.data as Partial<ToolStarted> | null;
  if (typeof data?.callId !== "string" || typeof data.idempotencyKey !== "string") return undefined;
  return { callId: data.callId, tool: String(data.tool), idempotencyKey: data.idempotencyKey };
}

/**
 * The calls recorded started after the answer `messageId` on `path`, by call id, with their keys.
 * Only the entries after that answer count: a provider may reuse call ids from one answer to the next.
 */
export function startedCalls(path: readonly Entry[], messageId: string): Map<string, string> {
  const started = new Map<string, string>();
  const from = path.findIndex((e) => e.id === messageId);
  if (from < 0) return started;
  for (const entry of path.slice(from + 1)) {
    const record = startedRecord(entry);
    if (record) started.set(record.callId, record.idempotencyKey);
  }
  return started;
}
