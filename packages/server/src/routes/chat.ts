import { ArborError, RunEventSchema, sessionBusy } from "@arbor/core/internal";
import type { Context } from "hono";
import { debugLevelOf } from "../cache-debug-schemas.js";
import type { ServerContext } from "../context.js";
import { continueFromEntry } from "../continue-from-entry.js";
import { ApiError } from "../errors.js";
import { defineRoute, type Route } from "../http/route.js";
import { AbortResponse, ChatRequest, ErrorResponse, SessionParams, StreamQuery } from "../schemas.js";
import type { SessionLog } from "../streams/session-log.js";
import { sseResponse } from "../streams/sse-response.js";

const LAST_EVENT_ID = "Last-Event-ID";

const SSE_DESCRIPTION =
  "Server-sent events: each message is `id: N` then `data: {run event}`; ids increase strictly. The first event " +
  "carries `session_id`; the stream ends after `done` or `error`. A client that disconnects does not stop the run.";

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

/** A resumed stream: every event after `cursor` exactly once, then live ones; 204 when there is nothing more. */
function resume(log: SessionLog, cursor: number): Response {
  const read = log.read(cursor);
  if (read === "expired") {
    throw new ApiError(
      "events_expired",
      `Events after ${cursor} of session ${log.sessionId} are no longer kept (or the id is from before a server restart); read the session with GET /api/sessions/${log.sessionId}.`,
    );
  }
  if (read === undefined && log.state !== "running") return new Response(null, { status: 204 });
  return sseResponse(log, cursor);
}

export function chatRoutes({ runtime, store, streams }: ServerContext): Route[] {
  const chat = defineRoute(
    {
      method: "POST",
      path: "/api/chat",
      tag: "chat",
      summary: "Run a prompt and stream its events",
      description:
        `${SSE_DESCRIPTION} Sent with a \`${LAST_EVENT_ID}\` header, the request resumes the run that event belongs to ` +
        "instead of starting a new one (so an EventSource-style client that re-sends the request on reconnect picks up where it left off).",
      body: ChatRequest,
      headers: { [LAST_EVENT_ID]: "Resume after this event id instead of starting a run." },
      responses: {
        200: { description: SSE_DESCRIPTION, schema: RunEventSchema, contentType: "text/event-stream" },
        204: { description: "Resumed after the last event of a finished run: nothing more to send." },
        400: { description: "Invalid body, id or model.", schema: ErrorResponse },
        404: { description: "session_id or from_entry_id does not exist.", schema: ErrorResponse },
        409: { description: "The session already has a run in progress.", schema: ErrorResponse },
        410: { description: "Resumed from an event that is no longer kept.", schema: ErrorResponse },
      },
    },
    async ({ body }, c) => {
      const cursor = resumeCursor(c);
      if (cursor !== undefined) {
        const log = streams.findByEventId(cursor) ?? (body.session_id === undefined ? undefined : streams.get(body.session_id));
        if (!log || (body.session_id !== undefined && log.sessionId !== body.session_id)) {
          throw new ApiError(
            "events_expired",
            `Event ${cursor} is not one this server still keeps${body.session_id ? ` for session ${body.session_id}` : ""}; read the session with GET /api/sessions/:id.`,
          );
        }
        return resume(log, cursor);
      }
      if (body.from_entry_id !== undefined && body.session_id === undefined) {
        throw new ApiError("invalid_input", "from_entry_id needs session_id: the entry is looked up in that session.");
      }
      let reserved: SessionLog | undefined;
      if (body.session_id !== undefined) {
        const sessionId = body.session_id;
        reserved = streams.reserve(sessionId);
        try {
          if (!(await store.getSession(sessionId))) {
            throw new ArborError("session_not_found", `Session ${sessionId} does not exist; omit session_id to start a new one.`);
          }
          // Another process (a second server, the CLI) driving the session answers 409 before any stream starts.
          const holder = await store.leaseHolder(sessionId);
          if (holder) throw sessionBusy(sessionId, holder);
          if (body.from_entry_id !== undefined) await continueFromEntry(store, sessionId, body.from_entry_id);
        } catch (err) {
          streams.release(reserved);
          throw err;
        }
      }
      const handle = runtime.run({
        prompt: body.message,
        ...(body.session_id === undefined ? {} : { sessionId: body.session_id }),
        ...(body.agent === undefined ? {} : { agent: body.agent }),
        ...(body.model === undefined ? {} : { model: body.model }),
        ...(body.thinking === undefined ? {} : { thinking: body.thinking }),
        ...(body.debug === undefined ? {} : { debug: debugLevelOf(body.debug) }),
      });
      const log = streams.start(handle);
      return sseResponse(log, log.latestRunCursor);
    },
  );

  const stream = defineRoute(
    {
      method: "GET",
      path: "/api/sessions/:id/stream",
      tag: "chat",
      summary: "Resume a session's run stream",
      description:
        `Every event after \`${LAST_EVENT_ID}\` (or \`last_event_id\`) exactly once, then live ones, until the run's done or error. ` +
        "Without an id: the latest run from its first event. Events are kept in memory per session (bounded) for this server process.",
      params: SessionParams,
      query: StreamQuery,
      headers: { [LAST_EVENT_ID]: "Resume after this event id." },
      responses: {
        200: { description: SSE_DESCRIPTION, schema: RunEventSchema, contentType: "text/event-stream" },
        204: { description: "Nothing to send: no run kept for this session, or the client has every event of it." },
        404: { description: "No such session.", schema: ErrorResponse },
        410: { description: "Events after that id are no longer kept.", schema: ErrorResponse },
      },
    },
    async ({ params, query }, c) => {
      const cursor = resumeCursor(c, query.last_event_id);
      const log = streams.get(params.id);
      if (!log) {
        if (!(await store.getSession(params.id)))
          throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
        if (cursor !== undefined) {
          throw new ApiError(
            "events_expired",
            `Session ${params.id} has no events kept after ${cursor}; read it with GET /api/sessions/${params.id}.`,
          );
        }
        return new Response(null, { status: 204 });
      }
      return resume(log, cursor ?? log.latestRunCursor);
    },
  );

  const abort = defineRoute(
    {
      method: "POST",
      path: "/api/sessions/:id/abort",
      tag: "chat",
      summary: "Abort the session's run",
      description:
        "The run ends with an `error` event whose code is `aborted`; the session stays consistent and can be continued.",
      params: SessionParams,
      responses: {
        200: { description: "Whether a run was aborted.", schema: AbortResponse },
        404: { description: "No such session.", schema: ErrorResponse },
      },
    },
    async ({ params }, c) => {
      if (streams.abort(params.id)) return c.json({ aborted: true });
      if (!(await store.getSession(params.id))) throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
      return c.json({ aborted: false });
    },
  );

  return [chat, stream, abort];
}
