import type { z } from "zod";
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
 * The custom entries of `customType` after the answer `messageId` on `path`, as `schema` reads them
 * (an entry it does not read is passed over). Only the entries after that answer count: a provider
 * may reuse call ids from one answer to the next.
 */
function recordsAfter<T>(path: readonly Entry[], messageId: string, customType: string, schema: z.ZodType<T>): T[] {
  const from = path.findIndex((e) => e.id === messageId);
  if (from < 0) return [];
  return path.slice(from + 1).flatMap((entry) => {
    if (entry.type !== "custom" || entry.customType !== customType) return [];
    const record = schema.safeParse(entry.data);
    return record.success ? [record.data] : [];
  });
}

/** The calls recorded started after the answer `messageId` on `path`, by call id, with their keys. */
export function startedCalls(path: readonly Entry[], messageId: string): Map<string, string> {
  const started = recordsAfter(path, messageId, TOOL_STARTED_ENTRY_TYPE, ToolStartedSchema);
  return new Map(started.map((r) => [r.callId, r.idempotencyKey]));
}

/** The last checkpoint each call saved after the answer `messageId` on `path`, by call id. */
export function savedCheckpoints(path: readonly Entry[], messageId: string): Map<string, Record<string, unknown>> {
  const saved = recordsAfter(path, messageId, TOOL_CHECKPOINT_ENTRY_TYPE, ToolCheckpointSchema);
  return new Map(saved.map((r) => [r.callId, r.data]));
}
