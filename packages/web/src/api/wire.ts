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

const SnapshotShape = z.looseObject({
  session: Meta,
  entries: z.array(EntryShape),
  activePath: z.array(z.string()),
  childrenByParentId: z.record(z.string(), z.array(z.string())),
  labelsByEntryId: z.record(z.string(), z.string()),
});

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
export const parseSnapshot = (value: unknown) => SnapshotShape.parse(value) as unknown as Snapshot;
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
