import { ArborError, isArborError, RunEventSchema, type Runtime } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { SteerResult } from "@arbor/core/session";
import { sessionBusy } from "@arbor/core/store";
import type { Context } from "hono";
import { debugLevelOf } from "../cache-debug-schemas.js";
import { requireAccepting, type ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { defineRoute, type Route } from "../http/route.js";
import { AbortResponse, ChatRequest, ErrorResponse, SessionParams, SteerResponse, StreamQuery } from "../schemas.js";
import { recordRun } from "../streams/run-stream.js";
import { sseResponse } from "../streams/sse-response.js";

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
async function resume(sessionId: string, reader: RunEventReader): Promise<Response> {
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

/** 409 when the session already has a driver, here or in another process. */
export async function requireNoRun(runtime: Runtime, sessionId: string): Promise<void> {
  const driver = await runtime.busy(sessionId);
  if (driver?.where === "elsewhere") throw sessionBusy(sessionId, driver.holder);
  if (driver) {
    throw new ArborError(
      "session_busy",
      `Session ${sessionId} is already running; wait for its done event, resume its stream with GET /api/sessions/${sessionId}/stream, or abort it with POST /api/sessions/${sessionId}/abort.`,
    );
  }
}

/** Steers the session's run; undefined when it turned out no run drives it (a compaction, say, or the run just ended). */
async function steerOrBusy(runtime: Runtime, sessionId: string, message: string): Promise<SteerResult | undefined> {
  try {
    return await runtime.steer(sessionId, message);
  } catch (err) {
    if (isArborError(err, "session_not_running")) return undefined;
    throw err;
  }
}

export function chatRoutes(ctx: ServerContext): Route[] {
  const { runtime, store } = ctx;
  const chat = defineRoute(
    {
      method: "POST",
      path: "/api/chat",
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
        200: { description: SSE_DESCRIPTION, schema: RunEventSchema, contentType: "text/event-stream" },
        202: {
          description:
            "session_id had a run in progress and `busy` is `steer` (the default): the message was handed to that run, which reads it before its next model call. Follow the run with GET /api/sessions/{id}/stream.",
          schema: SteerResponse,
        },
        204: { description: "Resumed after the last event of a finished run: nothing more to send." },
        400: { description: "Invalid body, id or model.", schema: ErrorResponse },
        404: { description: "session_id or from_entry_id does not exist.", schema: ErrorResponse },
        409: { description: "The session already has a run in progress and `busy` is `reject`.", schema: ErrorResponse },
        410: { description: "Resumed from an event that is no longer kept.", schema: ErrorResponse },
        503: {
          description: "With --cluster: this instance is shutting down and starts no run; send the request to another.",
          schema: ErrorResponse,
        },
      },
    },
    async ({ body }, c) => {
      const cursor = resumeCursor(c);
      if (cursor !== undefined) {
        const sessionId = body.session_id ?? runtime.events.sessionOfRecent(cursor);
        if (sessionId === undefined) {
          throw new ApiError(
            "events_expired",
            `Event ${cursor} is not one this server streamed recently; send session_id with ${LAST_EVENT_ID} to resume from the session's event log.`,
          );
        }
        if (!(await store.getSession(sessionId))) {
          throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
        }
        return resume(sessionId, await runtime.events.reader(sessionId, { after: cursor }));
      }
      if (body.from_entry_id !== undefined && body.session_id === undefined) {
        throw new ApiError("invalid_input", "from_entry_id needs session_id: the entry is looked up in that session.");
      }
      // Reading a run's events goes on while the instance stops; starting or steering one does not.
      requireAccepting(ctx);
      if (body.session_id !== undefined) {
        const sessionId = body.session_id;
        // A message for a session another run drives (here, a second server, the CLI) steers that run, or answers 409.
        if (body.busy !== "reject" && body.from_entry_id === undefined && (await runtime.busy(sessionId))) {
          const steered = await steerOrBusy(runtime, sessionId, body.message);
          if (steered) return c.json({ steered: true, session_id: sessionId, message_id: steered.messageId }, 202);
        }
        await requireNoRun(runtime, sessionId);
        if (!(await store.getSession(sessionId))) {
          throw new ArborError("session_not_found", `Session ${sessionId} does not exist; omit session_id to start a new one.`);
        }
        if (body.from_entry_id !== undefined && !(await store.getEntry(sessionId, body.from_entry_id))) {
          throw new ArborError(
            "entry_not_found",
            `Entry ${body.from_entry_id} does not exist in session ${sessionId}; pick one from GET /api/sessions/${sessionId}.`,
          );
        }
      }
      if (ctx.cluster) {
        // Recorded and queued in one transaction; the stream follows the run from the log, wherever it is driven.
        const queued = await ctx.cluster.queueChat({
          message: body.message,
          ...(body.session_id === undefined ? {} : { sessionId: body.session_id }),
          ...(body.from_entry_id === undefined ? {} : { fromEntryId: body.from_entry_id }),
          ...(body.agent === undefined ? {} : { agent: body.agent }),
          ...(body.model === undefined ? {} : { model: body.model }),
          ...(body.thinking === undefined ? {} : { thinking: body.thinking }),
          ...(body.debug === undefined ? {} : { debug: body.debug }),
        });
        return sseResponse(queued.sessionId, await runtime.events.reader(queued.sessionId, { after: queued.after }));
      }
      const handle = runtime.run({
        prompt: body.message,
        // A chat that slipped in since the check above ends at once with session_busy instead of queueing.
        busy: "reject",
        ...(body.session_id === undefined ? {} : { sessionId: body.session_id }),
        ...(body.from_entry_id === undefined ? {} : { fromEntryId: body.from_entry_id }),
        ...(body.agent === undefined ? {} : { agent: body.agent }),
        ...(body.model === undefined ? {} : { model: body.model }),
        ...(body.thinking === undefined ? {} : { thinking: body.thinking }),
        ...(body.debug === undefined ? {} : { debug: debugLevelOf(body.debug) }),
      });
      return sseResponse(handle.sessionId, recordRun(ctx, handle));
    },
  );

  const stream = defineRoute(
    {
      method: "GET",
      path: "/api/sessions/:id/stream",
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
        202: {
          description:
            "session_id had a run in progress and `busy` is `steer` (the default): the message was handed to that run, which reads it before its next model call. Follow the run with GET /api/sessions/{id}/stream.",
          schema: SteerResponse,
        },
        204: { description: "Nothing to send: no run streamed for this session, or the client has every event of it." },
        404: { description: "No such session.", schema: ErrorResponse },
        410: { description: "Events after that id are no longer kept, or the log never had that id.", schema: ErrorResponse },
      },
    },
    async ({ params, query }, c) => {
      const cursor = resumeCursor(c, query.last_event_id);
      if (!(await store.getSession(params.id))) throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
      const reader = await runtime.events.reader(params.id, cursor === undefined ? { latestRun: true } : { after: cursor });
      return resume(params.id, reader);
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
      const reason = new ArborError("aborted", `The run was aborted by POST /api/sessions/${params.id}/abort.`);
      if (runtime.abort(params.id, reason)) return c.json({ aborted: true });
      if (ctx.cluster && (await ctx.cluster.abort(params.id, reason.message))) return c.json({ aborted: true });
      if (!(await store.getSession(params.id))) throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
      return c.json({ aborted: false });
    },
  );

  return [chat, stream, abort];
}
