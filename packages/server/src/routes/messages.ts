import type { Store } from "@arbor/core";
import {
  findToolCalls,
  messageTrace,
  pageSortedTrace,
  parseTraceTime,
  type SortedTrace,
  sortTrace,
  type TraceMessage,
  toolStats,
} from "@arbor/core/trace";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";
import {
  MessagePageResponse,
  MessageParams,
  MessagesQuery,
  SessionParams,
  ToolCallListResponse,
  ToolCallsQuery,
  ToolStatsResponse,
} from "../schemas.js";
import { foundToolCallToWire, toolStatsToWire, tracePageToWire } from "../wire.js";

const badInput = "An id or a query parameter is not valid.";
const noSession = "No such session (never an empty list).";

/** The trace of the session's active path; a missing session throws session_not_found (404). */
async function traceOf(store: Store, sessionId: string): Promise<TraceMessage[]> {
  return messageTrace(sessionId, await store.getActivePath(sessionId));
}

const SORTED_TRACES_KEPT = 8;

/**
 * The sorted trace of a session's active path, kept for paging. A path is fixed by its leaf (entries
 * are only appended, and whatever changes the path moves the leaf; the update time is in the key too,
 * for an entry patched in place), so the trace built for one leaf serves every page read until it
 * moves: paging through a 30,000-entry session builds it once instead of once a page. Each server
 * keeps its own few, the most recently used last.
 */
function sortedTraces(store: Store): (sessionId: string) => Promise<SortedTrace> {
  const kept = new Map<string, SortedTrace>();
  return async (sessionId) => {
    const meta = await store.getSession(sessionId);
    const key = meta?.leafEntryId ? `${sessionId}\0${meta.leafEntryId}\0${meta.updatedAt}` : undefined;
    const hit = key === undefined ? undefined : kept.get(key);
    if (key !== undefined && hit) {
      kept.delete(key);
      kept.set(key, hit);
      return hit;
    }
    const sorted = sortTrace(await traceOf(store, sessionId));
    if (key !== undefined) {
      kept.set(key, sorted);
      if (kept.size > SORTED_TRACES_KEPT) kept.delete(kept.keys().next().value as string);
    }
    return sorted;
  };
}

/** The message trace: messages grouped per request, paged by time, deletable, with tool stats. */
export function messageRoutes({ runtime, store }: ServerContext): Route[] {
  const sortedTraceOf = sortedTraces(store);
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/messages",
        scope: "read",
        tag: "messages",
        summary: "The session's messages on the active path, grouped per request, newest first",
        description:
          "A request is a user message and the answer to it: the answer carries one agent step per model call, each with its tool calls and their results. Page with `limit` and `before` (the previous page's `next_cursor`).",
        params: SessionParams,
        query: MessagesQuery,
        responses: { 200: { description: "One page.", schema: MessagePageResponse }, 400: badInput, 404: noSession },
      },
      async ({ params, query }, c) => {
        const before = query.before === undefined ? undefined : parseTraceTime(query.before);
        const page = pageSortedTrace(await sortedTraceOf(params.id), {
          limit: query.limit,
          ...(before === undefined ? {} : { before }),
        });
        return c.json(tracePageToWire(page));
      },
    ),
    defineRoute(
      {
        method: "DELETE",
        path: "/api/sessions/:id/messages/:message_id",
        scope: "admin",
        tag: "messages",
        summary: "Delete one message with its agent steps and tool calls",
        description:
          "Erases the message (GDPR-style): its entries become tombstones in the store (ids and tree kept, content gone, marked `purged` in GET /api/sessions/:id), on every branch and in exports; the full tool outputs it saved, the event-log records of the runs that streamed it and the LLM response cache go too. An `arbor.delete` entry takes it off the active path's trace; other branches list it with `deleted: true`. Deleting a question leaves its answer; delete both for the whole request.",
        params: MessageParams,
        responses: {
          204: { description: "Deleted." },
          400: badInput,
          404: "No such session, or no such message on its active path.",
          409: "The session has a run in progress.",
        },
      },
      async ({ params }, c) => {
        // HTTP answers at once: a session with a driver is 409, never left waiting.
        await runtime.sessions.deleteMessage(params.id, params.message_id, { busy: "reject" });
        return c.body(null, 204);
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/tool-stats",
        scope: "read",
        tag: "messages",
        summary: "Per-tool call count, failures and durations (p50, p95, max) on the active path",
        params: SessionParams,
        responses: { 200: { description: "Stats by tool name.", schema: ToolStatsResponse }, 400: badInput, 404: noSession },
      },
      async ({ params }, c) => c.json({ tools: toolStats(await traceOf(store, params.id)).map(toolStatsToWire) }),
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/tool-calls",
        scope: "read",
        tag: "messages",
        summary: "Search the tool calls on the active path: failed (or successful) ones, of one tool",
        params: SessionParams,
        query: ToolCallsQuery,
        responses: {
          200: { description: "Matching calls, oldest first.", schema: ToolCallListResponse },
          400: badInput,
          404: noSession,
        },
      },
      async ({ params, query }, c) => {
        const found = findToolCalls(await traceOf(store, params.id), {
          ...(query.failed === undefined ? {} : { failed: query.failed }),
          ...(query.tool === undefined ? {} : { tool: query.tool }),
        });
        return c.json({ tool_calls: found.map(foundToolCallToWire) });
      },
    ),
  ];
}
