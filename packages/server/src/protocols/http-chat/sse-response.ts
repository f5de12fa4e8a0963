import type { ServerResponse } from "node:http";
import type { RunEventReader, RunEventStep } from "@arbor/core/events";
import type { Ask } from "../shared/asks.js";
import { type RunEventWire, readStep, type StreamEnd, toWire, type WireEvent } from "../shared/run-output.js";
import { unreachable } from "../shared/unreachable.js";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** The response header naming the session a stream belongs to. */
export const SESSION_HEADER = "x-arbor-session-id";

/** One SSE message; an event the store could not log goes without an id (it cannot be resumed after). */
function sseMessage({ id, json }: Pick<WireEvent, "id" | "json">): string {
  return id === undefined ? `data: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`;
}

/** A final `error` event, without an id, for a stream that cannot go on. */
function errorMessage(sessionId: string, code: string, content: string): string {
  return sseMessage({ id: undefined, json: JSON.stringify({ type: "error", session_id: sessionId, code, content }) });
}

/**
 * The run stream's wire: each run event as it was logged, asks included (a client answers them
 * with `POST /api/permissions/:id` or `POST /api/plan/approve`, and the stream goes on meanwhile).
 */
export const sseWire: RunEventWire<string> = {
  event: (e) => [sseMessage(e)],
  ask: (_ask: Ask, e) => [sseMessage(e)],
  end(end: StreamEnd) {
    switch (end.kind) {
      case "ended":
      case "closed":
      case "waiting":
        return [];
      case "expired":
        return [
          errorMessage(
            end.sessionId,
            "events_expired",
            "This stream fell behind further than the session's event log keeps, so it cannot continue exactly once; " +
              `read the session with GET /api/sessions/${end.sessionId} instead.`,
          ),
        ];
      case "failed":
        return [
          errorMessage(
            end.sessionId,
            "internal_error",
            `Reading the run's events failed (${end.message}); reconnect with the last event id received.`,
          ),
        ];
      default:
        return unreachable("end", end);
    }
  },
};

/**
 * An SSE response reading run events from `reader` until a run's `done`/`error`. Pull-based: the
 * next events are read only when the socket has taken the previous ones, so a slow client costs no
 * memory beyond the shared tail. `first` is a step already read (the route looked ahead to pick
 * its status). Cancelling (the client went away) ends this reader only; the run goes on.
 *
 * The body is a web stream, which any caller of the app can read; `listen` instead writes the events
 * to the Node response itself (see `writeDirect`), past the stream's enqueue and read, the
 * encoding and the node-server's read loop, which cost more per token than the event does.
 */
export function sseResponse(sessionId: string, reader: RunEventReader, first?: RunEventStep): Response {
  const encoder = new TextEncoder();
  let pending = first;
  /** Another reader took the events (a cancel, or the direct writer): this stream gives no more. */
  let taken = false;
  const next = async (): Promise<{ text: string; ended: boolean }> => {
    const step = await readStep(sessionId, reader, pending);
    pending = undefined;
    let text = "";
    for (const e of step.events) text += toWire(sseWire, e).join("");
    if (step.end) text += sseWire.end(step.end).join("");
    return { text, ended: step.end !== undefined };
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (taken) return;
        const { text, ended } = await next();
        if (taken) return;
        // A pull must enqueue or close, or the stream is not asked again.
        if (text !== "" || !ended) controller.enqueue(encoder.encode(text));
        if (ended) controller.close();
      },
      cancel() {
        taken = true;
        reader.close();
      },
    },
    { highWaterMark: 0 },
  );
  const direct: DirectBody = (out) => {
    if (taken) return false;
    taken = true;
    void writeEvents(out, next, () => reader.close());
    return true;
  };
  Object.defineProperty(body, DIRECT_BODY, { value: direct });
  // The session is named before any event: a queued chat's run may start later, on another instance.
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, [SESSION_HEADER]: sessionId } });
}

/** Writes the body's events to a Node response instead of its stream; false when the stream was read already. */
type DirectBody = (out: ServerResponse) => boolean;

/** Where an SSE body keeps its direct writer: a key only this module and `writeDirect` use. */
const DIRECT_BODY = Symbol("arbor.sse.direct");

/**
 * Sends `response` on the Node response `out` when its body is an SSE run stream, writing each step's
 * events as one `write` (status and headers are the response's, as the middleware left them); false
 * for any other response, which the caller sends as usual.
 */
export function writeDirect(response: Response, out: ServerResponse): boolean {
  const direct = (response.body as { [DIRECT_BODY]?: DirectBody } | null)?.[DIRECT_BODY];
  if (direct === undefined || out.headersSent || out.destroyed || out.req.method === "HEAD") return false;
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  out.writeHead(response.status, headers);
  if (!direct(out)) {
    out.end();
    return true;
  }
  // Sent at once, as the stream's first read would: the client learns the session before any event.
  out.flushHeaders();
  return true;
}

/** The events to `out` until the run's end or the client's leaving; a step is read only once the socket took the last. */
async function writeEvents(
  out: ServerResponse,
  next: () => Promise<{ text: string; ended: boolean }>,
  close: () => void,
): Promise<void> {
  let gone = false;
  let wake: (() => void) | undefined;
  const drained = () => wake?.();
  // The client went away: its reader ends now (a read waiting for the run's next events returns), as a cancelled stream's does.
  const leave = () => {
    if (gone) return;
    gone = true;
    close();
    wake?.();
  };
  out.on("close", leave);
  try {
    for (;;) {
      const { text, ended } = await next();
      if (gone) return;
      if (ended) {
        out.end(text);
        return;
      }
      if (text !== "" && !out.write(text)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          out.on("drain", drained);
        });
        out.off("drain", drained);
        wake = undefined;
        if (gone) return;
      }
    }
  } catch (err) {
    leave();
    out.destroy(err as Error);
  } finally {
    out.off("close", leave);
  }
}
