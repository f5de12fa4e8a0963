import { ArborError, RunEventSchema } from "@arbor/core";
import { getTrace, goalMessages } from "@arbor/core/trace";
import { z } from "zod";
import type { ServerContext } from "../context.js";
import { GoalMessagesResponse, goalMessageToWire } from "../goal-message-wire.js";
import { asPrincipal } from "../http/principal.js";
import { defineRoute, type Route } from "../http/route.js";
import { sseResponse } from "../protocols/http-chat/sse-response.js";
import { followRun } from "../streams/run-stream.js";
import { GoalEntriesResponse, GoalMessagesQuery, ReplayRequest, TraceParams, TraceResponse } from "../trace-schemas.js";
import { traceViewToWire } from "../wire.js";

const notFound = "No such trace (or goal, or message).";
const badInput = "An id or the body is not valid.";

/** The trace API: a trace with its plan and sub-traces, a goal's messages, and replay. */
export function traceRoutes(ctx: ServerContext): Route[] {
  const { runtime, store } = ctx;
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/traces/:id",
        scope: "read",
        tag: "traces",
        summary: "A trace with its goal tree and sub-traces",
        params: TraceParams,
        responses: { 200: { description: "The trace.", schema: TraceResponse }, 400: badInput, 404: notFound },
      },
      async ({ params }, c) => {
        const view = await getTrace(store, params.id);
        return c.json(traceViewToWire(view));
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/traces/:id/messages",
        scope: "read",
        tag: "traces",
        summary: "The messages written under one goal (an edge of the plan)",
        params: TraceParams,
        query: GoalMessagesQuery,
        responses: {
          200: {
            description: "Seed 000's message records in order (with format=entries: the message entries as stored).",
            schema: z.union([GoalMessagesResponse, GoalEntriesResponse]),
          },
          400: badInput,
          404: notFound,
        },
      },
      async ({ params, query }, c) => {
        const messages = await goalMessages(store, params.id, query.goal_id, { descendants: query.descendants === "true" });
        if (query.format === "entries") {
          // A goal of a long session holds thousands of messages; a viewer asks for the first page.
          return c.json(
            query.limit === undefined ? { messages } : { messages: messages.slice(0, query.limit), total: messages.length },
          );
        }
        // A record's sequence is its place among all the trace's messages, not among the goal's.
        const all = query.goal_id === undefined ? messages : await goalMessages(store, params.id, undefined);
        const sequence = new Map(all.map((entry, i) => [entry.id, i + 1]));
        return c.json({ messages: messages.map((entry) => goalMessageToWire(entry, params.id, sequence.get(entry.id) ?? 0)) });
      },
    ),
    defineRoute(
      {
        method: "PATCH",
        path: "/api/traces/:id/replay",
        scope: "run",
        tag: "traces",
        summary: "Edit a past goal call and continue from there",
        description:
          "Starts a new branch just before the message that made the goal call, redoes the call with the new arguments and " +
          "continues the run; the response is the run's event stream, as for POST /api/chat. An unknown message or call " +
          "ends the stream at once with an `error` event, having written nothing.",
        params: TraceParams,
        body: ReplayRequest,
        responses: {
          200: { description: "The continued run's events.", schema: RunEventSchema, contentType: "text/event-stream" },
          400: badInput,
          404: notFound,
          409: "The trace has a run in progress.",
        },
      },
      async ({ params, body }, c) => {
        // Admitted before anything is streamed: a trace with a driver is 409 session_busy.
        const started = await runtime.runs.start({
          ...asPrincipal(c),
          sessionId: params.id,
          prompt: "",
          onBusy: "reject",
          replay: {
            messageId: body.from_message_id,
            toolCallId: body.modified_tool_call.tool_call_id,
            arguments: body.modified_tool_call.new_arguments,
          },
          ...(body.agent ? { agent: body.agent } : {}),
          ...(body.model ? { model: body.model } : {}),
        });
        if (started.kind !== "started") throw new ArborError("session_busy", `Trace ${params.id} has a run in progress.`);
        const handle = started.handle;
        return sseResponse(handle.sessionId, followRun(ctx, handle));
      },
    ),
  ];
}
