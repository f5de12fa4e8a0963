import type { RunEventFrame, RunEventReader, RunEventStep } from "@arbor/core/events";
import { safeErrorMessage } from "../errors.js";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** The response header naming the session a stream belongs to. */
export const SESSION_HEADER = "x-arbor-session-id";

/** One SSE message per event; an event the store could not log goes without an id (it cannot be resumed after). */
function sseText(frames: readonly RunEventFrame[]): string {
  let text = "";
  for (const frame of frames)
    text += frame.id === undefined ? `data: ${frame.json}\n\n` : `id: ${frame.id}\ndata: ${frame.json}\n\n`;
  return text;
}

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
        let step: RunEventStep;
        try {
          step = pending !== undefined && pending.kind !== "live" ? pending : await reader.next();
        } catch (err) {
          // The store failed mid-stream: the client gets an ending it can act on, not a torn stream.
          controller.enqueue(encoder.encode(failedFrame(sessionId, err)));
          return controller.close();
        }
        pending = undefined;
        if (cancelled) return;
        switch (step.kind) {
          case "frames":
            controller.enqueue(encoder.encode(sseText(step.frames)));
            if (step.ended) controller.close();
            return;
          case "expired":
            controller.enqueue(encoder.encode(expiredFrame(sessionId)));
            return controller.close();
          case "end":
            return controller.close();
          case "live":
            // Only a look-ahead answers this, and it is never kept.
            return;
          default: {
            const never: never = step;
            throw new Error(`unknown step ${String(never)}`);
          }
        }
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

/** Sent, without an id, to a reader that fell further behind than the event log keeps. */
function expiredFrame(sessionId: string): string {
  const event = {
    type: "error",
    session_id: sessionId,
    code: "events_expired",
    content:
      "This stream fell behind further than the session's event log keeps, so it cannot continue exactly once; " +
      `read the session with GET /api/sessions/${sessionId} instead.`,
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Sent, without an id, when reading the session's event log failed; the client resumes with its last id. */
function failedFrame(sessionId: string, err: unknown): string {
  const event = {
    type: "error",
    session_id: sessionId,
    code: "internal_error",
    content: `Reading the run's events failed (${safeErrorMessage(err)}); reconnect with the last event id received.`,
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}
