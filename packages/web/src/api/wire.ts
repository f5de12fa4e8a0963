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

/** A trace under the trace model's names (`trace_id`, `parent_trace_id`, `agent_type`, …). */
const TraceWireShape = z.looseObject({
  trace_id: z.string(),
  agent_type: z.string(),
  status: z.optional(z.string()),
  task: z.optional(z.string()),
  parent_trace_id: z.optional(z.string()),
  parent_goal_id: z.optional(z.string()),
});

const TraceShape = z.looseObject({
  ...TraceWireShape.shape,
  goal_tree: z.nullable(z.unknown()),
  sub_traces: z.optional(z.record(z.string(), TraceWireShape)),
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

export interface TraceWire {
  trace_id: string;
  agent_type: string;
  status?: string;
  task?: string;
  parent_trace_id?: string;
  parent_goal_id?: string;
}

export interface TraceResponse extends TraceWire {
  /** The goal tree under the wire's names (older servers sent core's camelCase); normalized by the DAG view. */
  goal_tree: unknown;
  sub_traces: TraceWire[];
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
  return { ...(t as TraceWire), goal_tree: t.goal_tree, sub_traces: Object.values(t.sub_traces ?? {}) as TraceWire[] };
};
/** `{messages}`: entries for the trace route, trace messages for the message-trace route. */
/** Checked by hand, like a snapshot's entries: a goal of a long session lists thousands of messages, which zod would copy. */
export const parseMessages = <T>(value: unknown): T[] => {
  const messages = (value as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages) || !messages.every((m) => typeof m === "object" && m !== null)) {
    MessagesShape.parse(value);
  }
  return messages as T[];
};
export const ignoreBody = (_value: unknown): undefined => undefined;
export const anyJson = (value: unknown): unknown => value;

// The message trace (GET /api/sessions/:id/messages, tool-stats, tool-calls), snake_case as sent.

const ToolResultShape = z.looseObject({
  success: z.boolean(),
  output: z.string(),
  error: z.optional(z.string()),
});

const ToolCallShape = z.looseObject({
  id: z.string(),
  name: z.string(),
  args: z.unknown(),
  result: z.nullable(ToolResultShape),
  reflection: z.optional(z.string()),
  duration: z.number(),
});

const AgentStepShape = z.looseObject({
  iteration: z.number(),
  entry_id: z.optional(z.string()),
  thought: z.string(),
  tool_calls: z.array(ToolCallShape),
  timestamp: z.string(),
});

const TraceMessageShape = z.looseObject({
  id: z.string(),
  request_id: z.string(),
  content: z.string(),
  role: z.enum(["user", "assistant"]),
  /** Knowledge-base passages the answer used ({source, location, excerpt}); the view reads what it knows. */
  knowledge_references: z.optional(z.array(z.unknown())),
  agent_steps: z.array(AgentStepShape),
  is_completed: z.boolean(),
  created_at: z.string(),
});

const MessagePageShape = z.object({ messages: z.array(TraceMessageShape), next_cursor: z.optional(z.string()) });

const ToolStatsShape = z.object({
  tools: z.array(
    z.looseObject({
      name: z.string(),
      count: z.number(),
      failures: z.number(),
      p50_ms: z.number(),
      p95_ms: z.number(),
      max_ms: z.number(),
      total_ms: z.number(),
    }),
  ),
});

const FoundToolCallsShape = z.object({
  tool_calls: z.array(
    z.looseObject({
      message_id: z.string(),
      request_id: z.string(),
      iteration: z.number(),
      timestamp: z.string(),
      tool_call: ToolCallShape,
    }),
  ),
});

export type TraceToolCall = z.infer<typeof ToolCallShape>;
export type TraceStep = z.infer<typeof AgentStepShape>;
export type TraceMessage = z.infer<typeof TraceMessageShape>;
export type MessagePage = z.infer<typeof MessagePageShape>;
export type ToolStats = z.infer<typeof ToolStatsShape>["tools"][number];
export type FoundToolCall = z.infer<typeof FoundToolCallsShape>["tool_calls"][number];

export const parseMessagePage = (value: unknown): MessagePage => MessagePageShape.parse(value);
export const parseToolStats = (value: unknown): ToolStats[] => ToolStatsShape.parse(value).tools;
export const parseFoundToolCalls = (value: unknown): FoundToolCall[] => FoundToolCallsShape.parse(value).tool_calls;

// DebugMiddleware's records (GET /api/sessions/:id/debug).

const DebugRecordShape = z.looseObject({
  kind: z.enum(["tool", "llm"]),
  event_id: z.number(),
  run_id: z.string(),
  call_id: z.string(),
  level: z.string(),
  started_at: z.string(),
  duration_ms: z.optional(z.number()),
  interrupted: z.optional(z.boolean()),
  input: z.optional(z.string()),
  output: z.optional(z.string()),
  truncated: z.optional(z.boolean()),
  tool: z.optional(z.string()),
  is_error: z.optional(z.boolean()),
  node: z.optional(z.string()),
  model: z.optional(z.string()),
  input_tokens: z.optional(z.number()),
  output_tokens: z.optional(z.number()),
  total_tokens: z.optional(z.number()),
  cached: z.optional(z.boolean()),
  finish_reason: z.optional(z.string()),
  settings: z.optional(z.record(z.string(), z.unknown())),
});

const DebugPageShape = z.looseObject({ records: z.array(DebugRecordShape), next_after: z.optional(z.number()) });

export type DebugRecord = z.infer<typeof DebugRecordShape>;
export type DebugPage = z.infer<typeof DebugPageShape>;
export const parseDebugPage = (value: unknown): DebugPage => DebugPageShape.parse(value);

// The server's defaults (GET /api/info): what the composer shows for an empty model or agent field.

const InfoShape = z.looseObject({
  default_model: z.nullable(z.string()),
  default_agent: z.string(),
  agents: z.array(z.looseObject({ name: z.string(), description: z.optional(z.string()), model: z.optional(z.string()) })),
  providers: z.optional(z.array(z.string())),
});
export type ServerInfo = z.infer<typeof InfoShape>;
export const parseServerInfo = (value: unknown): ServerInfo => InfoShape.parse(value);

/** `GET /api/mcp/servers`: the names `@server:uri` may attach from. */
const McpServersShape = z.object({ servers: z.array(z.looseObject({ name: z.string(), enabled: z.boolean() })) });
export const parseMcpServerNames = (value: unknown): string[] =>
  McpServersShape.parse(value)
    .servers.filter((s) => s.enabled)
    .map((s) => s.name);
