import type { SessionLog } from "./session-log.js";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/**
 * An SSE response reading `log` after `cursor` until a run's `done`/`error`. Pull-based: the next
 * frames are read from the shared log only when the socket has taken the previous ones, so a slow
 * client costs no memory beyond the log. Cancelling (the client went away) ends this reader only.
 */
export function sseResponse(log: SessionLog, cursor: number): Response {
  const encoder = new TextEncoder();
  let position = cursor;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (cancelled) return;
          if (log.isClosed) return controller.close();
          const read = log.read(position);
          if (read === "expired") {
            controller.enqueue(encoder.encode(expiredFrame(log.sessionId)));
            return controller.close();
          }
          if (read !== undefined) {
            position = read.lastId;
            controller.enqueue(encoder.encode(read.text));
            if (read.ended) controller.close();
            return;
          }
          // Nothing after the cursor and no run to produce more: the stream is complete.
          if (log.state !== "running") return controller.close();
          await log.next();
        }
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** Sent, without an id, to a reader that fell further behind than the log keeps. */
function expiredFrame(sessionId: string): string {
  const event = {
    type: "error",
    session_id: sessionId,
    code: "events_expired",
    content:
      "This stream fell behind further than the server keeps events, so it cannot continue exactly once; " +
      `read the session with GET /api/sessions/${sessionId} instead.`,
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}
