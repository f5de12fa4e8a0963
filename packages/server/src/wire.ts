import type { CompactResult, ListSessionsOptions, PendingPermission, SessionInit, SessionMeta, SessionPage } from "@arbor/core";
import type { GoalTree } from "@arbor/core/session";
import type { FoundToolCall, ToolStats, TraceMessage, TracePage, TraceToolCall } from "@arbor/core/trace";
import { goalTreeToWire, runUsageOnWire } from "@arbor/core/wire";
import type { z } from "zod";
import type {
  CompactResponse,
  CreateSessionRequest,
  FoundToolCallWire,
  ListSessionsQuery,
  MessagePageResponse,
  PermissionResponse,
  SessionPageResponse,
  ToolCallWire,
  ToolStatsWire,
  TraceMessageWire,
} from "./schemas.js";
import type { TraceResponse, TraceWireSchema } from "./trace-schemas.js";

/**
 * The one place where core's camelCase meets the wire's snake_case, so no route converts on its own.
 * Session metadata and snapshots cross as they are (clients read them camelCase); run events already
 * carry their wire names.
 */

export function sessionInitFromWire(body: z.output<typeof CreateSessionRequest>): SessionInit {
  const init: SessionInit = {};
  if (body.id !== undefined) init.id = body.id;
  if (body.title !== undefined) init.title = body.title;
  if (body.cwd !== undefined) init.cwd = body.cwd;
  if (body.agent_id !== undefined) init.agentId = body.agent_id;
  return init;
}

/** The list query's wire names as the store's options; `parent_id=none` is the top level. */
export function listSessionsFromWire(query: z.output<typeof ListSessionsQuery>): ListSessionsOptions {
  return {
    ...(query.limit !== undefined ? { limit: query.limit } : {}),
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    ...(query.cwd !== undefined ? { cwd: query.cwd } : {}),
    ...(query.parent_id !== undefined ? { parentSessionId: query.parent_id === "none" ? null : query.parent_id } : {}),
  };
}

export function sessionPageToWire(page: SessionPage): z.output<typeof SessionPageResponse> {
  return page.nextCursor === undefined ? { sessions: page.sessions } : { sessions: page.sessions, next_cursor: page.nextCursor };
}

export function permissionToWire(p: PendingPermission): z.output<typeof PermissionResponse> {
  const out: z.output<typeof PermissionResponse> = {
    id: p.id,
    session_id: p.sessionId,
    agent: p.agent,
    permission: p.request.permission,
    patterns: p.request.patterns,
  };
  if (p.tool !== undefined) out.tool = p.tool;
  if (p.callId !== undefined) out.call_id = p.callId;
  if (p.request.always !== undefined) out.always = p.request.always;
  if (p.request.metadata !== undefined) out.metadata = p.request.metadata;
  return out;
}

function toolCallToWire(call: TraceToolCall): z.output<typeof ToolCallWire> {
  const out: z.output<typeof ToolCallWire> = {
    id: call.id,
    name: call.name,
    args: call.args,
    result: call.result && { ...call.result },
    duration: call.durationMs,
  };
  if (call.reflection !== undefined) out.reflection = call.reflection;
  return out;
}

/** A trace message on the wire; `entryIds` stays in core (the delete route's business, not the client's). */
export function traceMessageToWire(m: TraceMessage): z.output<typeof TraceMessageWire> {
  return {
    id: m.id,
    session_id: m.sessionId,
    request_id: m.requestId,
    content: m.content,
    role: m.role,
    knowledge_references: m.knowledgeReferences,
    agent_steps: m.agentSteps.map((s) => ({
      iteration: s.iteration,
      entry_id: s.entryId,
      thought: s.thought,
      tool_calls: s.toolCalls.map(toolCallToWire),
      timestamp: s.timestamp,
    })),
    is_completed: m.isCompleted,
    ...(m.deleted ? { deleted: true as const } : {}),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function tracePageToWire(page: TracePage): z.output<typeof MessagePageResponse> {
  const messages = page.messages.map(traceMessageToWire);
  return page.nextCursor === undefined ? { messages } : { messages, next_cursor: page.nextCursor };
}

export function toolStatsToWire(s: ToolStats): z.output<typeof ToolStatsWire> {
  return {
    name: s.name,
    count: s.count,
    failures: s.failures,
    p50_ms: s.p50Ms,
    p95_ms: s.p95Ms,
    max_ms: s.maxMs,
    total_ms: s.totalMs,
  };
}

export function foundToolCallToWire(f: FoundToolCall): z.output<typeof FoundToolCallWire> {
  return {
    message_id: f.messageId,
    request_id: f.requestId,
    iteration: f.iteration,
    timestamp: f.timestamp,
    tool_call: toolCallToWire(f.call),
  };
}

export function compactResultToWire(r: CompactResult): z.output<typeof CompactResponse> {
  return {
    session_id: r.sessionId,
    entry_id: r.entryId,
    tokens_before: r.tokensBefore,
    tokens_after: r.tokensAfter,
    summarized: r.summarized,
    kept: r.kept,
    split_turn: r.splitTurn,
    usage: runUsageOnWire(r.usage),
    cost: r.costKnown === false ? null : r.cost,
  };
}

/** A trace's metadata under the trace model's names; fields it does not have are left out. */
export function traceToWire(meta: SessionMeta): z.output<typeof TraceWireSchema> {
  return {
    trace_id: meta.id,
    mode: meta.mode,
    agent_type: meta.agentType,
    ...(meta.task !== undefined ? { task: meta.task } : {}),
    ...(meta.title !== undefined ? { title: meta.title } : {}),
    ...(meta.cwd !== undefined ? { cwd: meta.cwd } : {}),
    ...(meta.parentSessionId !== undefined ? { parent_trace_id: meta.parentSessionId } : {}),
    ...(meta.parentGoalId !== undefined ? { parent_goal_id: meta.parentGoalId } : {}),
    ...(meta.context !== undefined ? { context: snakeKeys(meta.context) } : {}),
    ...(meta.status !== undefined ? { status: meta.status } : {}),
    total_messages: meta.totalMessages,
    total_tokens: meta.totalTokens,
    total_cost: meta.totalCost,
    created_at: meta.createdAt,
    updated_at: meta.updatedAt,
    ...(meta.completedAt !== undefined ? { completed_at: meta.completedAt } : {}),
  };
}

/** `maxTurns` → `max_turns`, for the top-level keys of a record the wire names in snake_case. */
function snakeKeys(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  );
}

export function traceViewToWire(view: {
  trace: SessionMeta;
  goalTree: GoalTree | null;
  subTraces: readonly SessionMeta[];
}): z.output<typeof TraceResponse> {
  return {
    ...traceToWire(view.trace),
    goal_tree: view.goalTree ? goalTreeToWire(view.goalTree) : null,
    sub_traces: Object.fromEntries(view.subTraces.map((sub) => [sub.id, traceToWire(sub)])),
  };
}
