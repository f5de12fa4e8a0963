import { ArborError, type RunEvent, RunEventSchema } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { Context } from "hono";
import type { z } from "zod";
import type { ServerContext } from "../../context.js";
import { ApiError } from "../../errors.js";
import { asPrincipal, principalOf } from "../../http/principal.js";
import { defineRoute, type Route } from "../../http/route.js";
import { AbortResponse, ChatRequest, SessionParams, SteerResponse, StreamQuery } from "../../schemas.js";
import type { ChatTurn } from "../shared/run-input.js";
import { readStep } from "../shared/run-output.js";
import { chatRouteResponses, ProtocolRuntime, type ReadFrom } from "../shared/runs.js";
import { SESSION_HEADER, sseResponse } from "./sse-response.js";

const LAST_EVENT_ID = "Last-Event-ID";

const SSE_DESCRIPTION =
  "Server-sent events: each message is `id: N` then `data: {run event}`; N is the event's id in the session's event log, " +
  "strictly increasing per session and kept across server restarts. The first event carries `session_id`; the stream ends " +
  "after `done` or `error`. A client that disconnects does not stop the run.";

/** The `Last-Event-ID` header or `last_event_id` query value as a number; undefined when neither is given. */
function resumeCursor(c: Context, query?: string): number | undefined {
  const raw = c.req.header(LAST_EVENT_ID) ?? query;
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    throw new ApiError(
      "invalid_input",
      `${LAST_EVENT_ID} must be the decimal id of an event this server sent, not ${JSON.stringify(raw.slice(0, 40))}.`,
    );
  }
  return Number(raw);
}

/** A resumed stream: every run event after the reader's cursor exactly once, then live ones; 204 when there is nothing more. */
async function resume(runs: ProtocolRuntime, sessionId: string, from: ReadFrom): Promise<Response> {
  const reader = await runs.reader(sessionId, from);
  const first = await reader.next(false);
  if (first.kind === "end") return new Response(null, { status: 204 });
  if (first.kind === "expired") {
    throw new ApiError(
      "events_expired",
      `Events of session ${sessionId} after that id are no longer kept; read the session with GET /api/sessions/${sessionId}.`,
    );
  }
  return sseResponse(sessionId, reader, first);
}

/**
 * A run read to its end for a client that asked not to stream: its last event (`done` or `error`).
 * Asks do not end it: the run waits for their answer (`POST /api/permissions/:id`) as a streamed one does.
 */
async function lastEvent(sessionId: string, reader: RunEventReader): Promise<RunEvent> {
  try {
    for (;;) {
      const step = await readStep(sessionId, reader);
      const last = step.events.at(-1)?.event;
      if (step.end?.kind === "ended" && last) return last;
      if (step.end !== undefined && step.end.kind !== "ended") {
        const reason = step.end.kind === "failed" ? step.end.message : `the stream ended (${step.end.kind})`;
        throw new ApiError("internal_error", `Reading the run's events failed: ${reason}; read GET /api/sessions/${sessionId}.`);
      }
    }
  } finally {
    reader.close();
  }
}

/** The chat body in the runtime's terms (snake_case on the wire). */
function turnOf(body: z.output<typeof ChatRequest>): ChatTurn {
  return {
    message: body.message,
    ...(body.session_id === undefined ? {} : { sessionId: body.session_id }),
    ...(body.from_entry_id === undefined ? {} : { fromEntryId: body.from_entry_id }),
    ...(body.agent === undefined ? {} : { agent: body.agent }),
    ...(body.model === undefined ? {} : { model: body.model }),
    ...(body.thinking === undefined ? {} : { thinking: body.thinking }),
    ...(body.debug === undefined ? {} : { debug: body.debug }),
    ...(body.attachments === undefined ? {} : { attachments: body.attachments.map((a) => ({ mcpResource: a.mcp_resource })) }),
    ...(body.mcp_prompt === undefined
      ? {}
      : {
          mcpPrompt: { server: body.mcp_prompt.server, name: body.mcp_prompt.name, arguments: body.mcp_prompt.arguments ?? {} },
        }),
  };
}

/** The run stream over SSE: start a run (or steer one), resume a session's stream, abort. */
export function chatRoutes(ctx: ServerContext): Route[] {
  const { store } = ctx;
  const runs = new ProtocolRuntime(ctx);
  const chat = defineRoute(
    {
      method: "POST",
      path: "/api/chat",
      scope: "run",
      tag: "chat",
      summary: "Run a prompt and stream its events",
      description:
        `${SSE_DESCRIPTION} Sent with a \`${LAST_EVENT_ID}\` header, the request resumes the run that event belongs to ` +
        "instead of starting a new one (so an EventSource-style client that re-sends the request on reconnect picks up where it left off). " +
        "With `session_id` in the body this works on any server over the same store, also after a restart; without it only on the " +
        "server that streamed the run.",
      body: ChatRequest,
      headers: { [LAST_EVENT_ID]: "Resume after this event id instead of starting a run." },
      responses: {
        ...chatRouteResponses(
          {
            description: `${SSE_DESCRIPTION} With \`stream: false\`: the run's last event (\`done\` or \`error\`) as JSON, once the run ends.`,
            schema: RunEventSchema,
            contentType: "text/event-stream",
          },
          "Invalid body, id or model.",
          "session_id or from_entry_id does not exist.",
          " and `busy` is `reject`",
        ),
        202: {
          description:
            "session_id had a run in progress and `busy` is `steer` (the default): the message was handed to that run, which reads it before its next model call. Follow the run with GET /api/sessions/{id}/stream.",
          schema: SteerResponse,
        },
        204: { description: "Resumed after the last event of a finished run: nothing more to send." },
        410: "Resumed from an event that is no longer kept.",
      },
    },
    async ({ body }, c) => {
      const cursor = resumeCursor(c);
      if (cursor !== undefined) {
        const sessionId = body.session_id ?? runs.sessionOfRecent(cursor);
        if (sessionId === undefined) {
          throw new ApiError(
            "events_expired",
            `Event ${cursor} is not one this server streamed recently; send session_id with ${LAST_EVENT_ID} to resume from the session's event log.`,
          );
        }
        const principal = principalOf(c);
        if (principal) await ctx.runtime.access.session(principal, sessionId, "read", "Resuming a run stream");
        if (!(await store.getSession(sessionId))) {
          throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
        }
        return resume(runs, sessionId, { after: cursor });
      }
      if (body.from_entry_id !== undefined && body.session_id === undefined) {
        throw new ApiError("invalid_input", "from_entry_id needs session_id: the entry is looked up in that session.");
      }
      if (body.message === "" && body.mcp_prompt === undefined) {
        throw new ApiError("invalid_input", "message must not be empty (it may be only with mcp_prompt).");
      }
      const turn = { ...turnOf(body), ...asPrincipal(c) };
      // A message for a session another run drives (here, a second server, the CLI) steers that run, or
      // answers 409; an unknown session or entry is refused before anything is written.
      const begun = await runs.begin(turn, { steer: body.busy !== "reject" });
      if ("steered" in begun) {
        const { sessionId, messageId } = begun.steered;
        return c.json({ steered: true, session_id: sessionId, message_id: messageId }, 202);
      }
      const { started } = begun;
      if (body.stream === false)
        return c.json(await lastEvent(started.sessionId, started.reader), 200, { [SESSION_HEADER]: started.sessionId });
      return sseResponse(started.sessionId, started.reader);
    },
  );

  const stream = defineRoute(
    {
      method: "GET",
      path: "/api/sessions/:id/stream",
      scope: "read",
      tag: "chat",
      summary: "Resume a session's run stream",
      description:
        `Every run event after \`${LAST_EVENT_ID}\` (or \`last_event_id\`) exactly once, then live ones, until the run's done or error. ` +
        "The events come from the session's event log, so this works on any server over the same store, also after a restart. " +
        "Without an id: the latest run this server streamed, from its first event.",
      params: SessionParams,
      query: StreamQuery,
      headers: { [LAST_EVENT_ID]: "Resume after this event id." },
      responses: {
        200: { description: SSE_DESCRIPTION, schema: RunEventSchema, contentType: "text/event-stream" },
        204: { description: "Nothing to send: no run streamed for this session, or the client has every event of it." },
        404: "No such session.",
        410: "Events after that id are no longer kept, or the log never had that id.",
      },
    },
    async ({ params, query }, c) => {
      const cursor = resumeCursor(c, query.last_event_id);
      if (!(await store.getSession(params.id))) throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
      return resume(runs, params.id, cursor === undefined ? { latestRun: true } : { after: cursor });
    },
  );

  const abort = defineRoute(
    {
      method: "POST",
      path: "/api/sessions/:id/abort",
      scope: "run",
      tag: "chat",
      summary: "Abort the session's run",
      description:
        "The run ends with an `error` event whose code is `aborted`; the session stays consistent and can be continued.",
      params: SessionParams,
      responses: { 200: { description: "Whether a run was aborted.", schema: AbortResponse }, 404: "No such session." },
    },
    async ({ params }, c) => {
      const reason = new ArborError("aborted", `The run was aborted by POST /api/sessions/${params.id}/abort.`);
      if (await runs.abort(params.id, reason)) return c.json({ aborted: true });
      if (!(await store.getSession(params.id))) throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
      return c.json({ aborted: false });
    },
  );

  return [chat, stream, abort];
}
