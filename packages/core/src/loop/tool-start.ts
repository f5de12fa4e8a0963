import type { Entry } from "../model/entry.js";
import {
  TOOL_CHECKPOINT_ENTRY_TYPE,
  TOOL_STARTED_ENTRY_TYPE,
  ToolCheckpointSchema,
  type ToolStarted,
  ToolStartedSchema,
} from "../session/tool-started-entry.js";

export { TOOL_CHECKPOINT_ENTRY_TYPE, TOOL_STARTED_ENTRY_TYPE, type ToolStarted };

/** A key unique to one call of one session, the same however often it is worked out. */
export function idempotencyKeyOf(sessionId: string, callId: string): string {
  return `arbor:${sessionId}:${callId}`;
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
    if (entry.type !== "custom" || entry.customType !== TOOL_STARTED_ENTRY_TYPE) continue;
    const record = ToolStartedSchema.safeParse(entry.data);
    if (record.success) started.set(record.data.callId, record.data.idempotencyKey);
  }
  return started;
}

/** The last checkpoint each call saved after the answer `messageId` on `path`, by call id. */
export function savedCheckpoints(path: readonly Entry[], messageId: string): Map<string, Record<string, unknown>> {
  const saved = new Map<string, Record<string, unknown>>();
  const from = path.findIndex((e) => e.id === messageId);
  if (from < 0) return saved;
  for (const entry of path.slice(from + 1)) {
    if (entry.type !== "custom" || entry.customType !== TOOL_CHECKPOINT_ENTRY_TYPE) continue;
    const record = ToolCheckpointSchema.safeParse(entry.data);
    if (record.success) saved.set(record.data.callId, record.data.data);
  }
  return saved;
}
