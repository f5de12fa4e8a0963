import type { Entry, RunEvent, SessionMeta, Snapshot } from "@arbor/core";
import * as z from "zod/mini";

/**
 * Checks on what the server sends, at the boundary: enough shape that the views can trust the
 * fields they read, loose elsewhere so a newer server's extra fields pass through. The types are
 * core's own (type-only imports: nothing of core reaches the bundle). zod/mini keeps this small.
 */

const Meta = z.looseObject({
  id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  leafEntryId: z.nullable(z.string()),
  title: z.optional(z.string()),
  parentSessionId: z.optional(z.string()),
});

const EntryShape = z.looseObject({ id: z.string(), parentId: z.nullable(z.string()), type: z.string(), timestamp: z.string() });

const SessionPageShape = z.object({ sessions: z.array(Meta), next_cursor: z.optional(z.string()) });

/**
 * A snapshot's big collections (entries, the active path, the children index) are checked by hand
 * rather than through zod, which copies every object it parses: a 30,000-entry session would spend a
 * good part of its 2-second first-render budget on that. The session meta still goes through zod.
 */
function checkSnapshot(value: unknown): Snapshot {
  const s = value as Record<string, unknown> | null;
  const fail = (what: string): never => {
    throw new Error(`The server sent a snapshot without a valid ${what}.`);
  };
  if (typeof s !== "object" || s === null) fail("body");
  const snapshot = s as Record<string, unknown>;
  Meta.parse(snapshot.session);
  const { entries, activePath, childrenByParentId, labelsByEntryId } = snapshot;
  if (!Array.isArray(entries)) fail("entries list");
  for (const e of entries as Array<{ id?: unknown; parentId?: unknown; type?: unknown } | null>) {
    if (typeof e?.id !== "string" || typeof e.type !== "string" || (e.parentId !== null && typeof e.parentId !== "string")) {
      fail("entry (id, parentId, type)");
    }
  }
  if (!Array.isArray(activePath) || !activePath.every((id) => typeof id === "string")) fail("activePath");
  if (typeof childrenByParentId !== "object" || childrenByParentId === null) fail("childrenByParentId");
  if (typeof labelsByEntryId !== "object" || labelsByEntryId === null) fail("labelsByEntryId");
  return value as Snapshot;
}

const RunEventShape = z.looseObject({ type: z.string(), session_id: z.string() });

const PermissionShape = z.looseObject({
  id: z.string(),
  session_id: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  tool: z.optional(z.string()),
  call_id: z.optional(z.string()),
});

const TraceShape = z.looseObject({
  trace: Meta,
  goal_tree: z.nullable(z.unknown()),
  sub_traces: z.optional(z.array(Meta)),
});

const MessagesShape = z.looseObject({ messages: z.array(z.looseObject({})) });

export interface SessionPage {
  sessions: SessionMeta[];
  next_cursor?: string;
}

export interface PendingPermission {
  id: string;
  session_id: string;
  permission: string;
  patterns: string[];
  tool?: string;
  call_id?: string;
  metadata?: Record<string, unknown>;
}

export interface TraceResponse {
  trace: SessionMeta;
  /** Core's GoalTree (camelCase) or seed 000's snake_case; normalized by the DAG view. */
  goal_tree: unknown;
  sub_traces: SessionMeta[];
}

export const parseSessionPage = (value: unknown) => SessionPageShape.parse(value) as SessionPage;
export const parseSessionMeta = (value: unknown) => Meta.parse(value) as SessionMeta;
export const parseSnapshot = checkSnapshot;
export const parseEntry = (value: unknown) => EntryShape.parse(value) as unknown as Entry;
export const parseRunEvent = (value: unknown) => RunEventShape.parse(value) as RunEvent;
export const parsePermissions = (value: unknown) =>
  z.object({ permissions: z.array(PermissionShape) }).parse(value).permissions as PendingPermission[];
export const parseTrace = (value: unknown): TraceResponse => {
  const t = TraceShape.parse(value);
  return { trace: t.trace as SessionMeta, goal_tree: t.goal_tree, sub_traces: (t.sub_traces ?? []) as SessionMeta[] };
};
/** `{messages}`: entries for the trace route, seed 002 messages for the message-trace route. */
export const parseMessages = <T>(value: unknown) => MessagesShape.parse(value).messages as T[];
export const ignoreBody = (_value: unknown): undefined => undefined;
export const anyJson = (value: unknown): unknown => value;
