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
 */
export function sseResponse(sessionId: string, reader: RunEventReader, first?: RunEventStep): Response {
  const encoder = new TextEncoder();
  let pending = first;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (cancelled) return;
        const step = await readStep(sessionId, reader, pending);
        pending = undefined;
        if (cancelled) return;
        let text = "";
        for (const e of step.events) text += toWire(sseWire, e).join("");
        if (step.end) text += sseWire.end(step.end).join("");
        // A pull must enqueue or close, or the stream is not asked again.
        if (text !== "" || !step.end) controller.enqueue(encoder.encode(text));
        if (step.end) controller.close();
      },
      cancel() {
        cancelled = true;
        reader.close();
      },
    },
    { highWaterMark: 0 },
  );
  // The session is named before any event: a queued chat's run may start later, on another instance.
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, [SESSION_HEADER]: sessionId } });
}
