import type { RunEvent, RunEventReader, RunEventStep } from "@arbor/core/internal";
import { createUIMessageStreamResponse } from "ai";
import { safeErrorMessage } from "../errors.js";
import { type ArborUIChunk, RunEventChunker } from "./ui-chunks.js";

export interface UiStreamOptions {
  sessionId: string;
  reader: RunEventReader;
  /** A step already read (the route looked ahead to pick its status). */
  first?: RunEventStep;
  /** Whether the event is an ask (permission or plan) still waiting: the message then ends, and the client's approval continues it. */
  waitsForAnswer(event: RunEvent): boolean;
  /** Chunks sent right after `start` (the outcome of the approvals this request answered). */
  opening?: ArborUIChunk[];
  /** The cursor the reader started after, reported until an event is read. */
  after?: number;
}

/**
 * A UI message stream response (the `ai` package's SSE framing, headers and `[DONE]`) of the run
 * events `reader` gives. Pull-based like the run stream: events are read only when the client has
 * taken the previous chunks, and a client that leaves stops this reader only, never the run.
 */
export function uiStreamResponse({ sessionId, reader, first, waitsForAnswer, after, opening = [] }: UiStreamOptions): Response {
  const chunker = new RunEventChunker(sessionId);
  let pending = first;
  let lastId = after;
  let started = false;
  let cancelled = false;
  const stream = new ReadableStream<ArborUIChunk>(
    {
      async pull(controller) {
        if (cancelled) return;
        if (!started) {
          started = true;
          controller.enqueue(chunker.start(lastId));
          for (const chunk of opening) controller.enqueue(chunk);
        }
        let step: RunEventStep;
        try {
          step = pending !== undefined && pending.kind !== "live" ? pending : await reader.next();
        } catch (err) {
          // The store failed mid-stream: an ending the client can show, not a torn stream.
          controller.enqueue({ type: "error", errorText: `Reading the run's events failed: ${safeErrorMessage(err)}` });
          return controller.close();
        }
        pending = undefined;
        if (cancelled) return;
        switch (step.kind) {
          case "frames": {
            for (const frame of step.frames) {
              const event = JSON.parse(frame.json) as RunEvent;
              if (frame.id !== undefined) lastId = frame.id;
              for (const chunk of chunker.chunks(event)) controller.enqueue(chunk);
              if (waitsForAnswer(event)) {
                // The run waits for the answer; the client sends it with its next request, which continues from here.
                for (const chunk of chunker.finish(lastId, "tool-calls")) controller.enqueue(chunk);
                reader.close();
                return controller.close();
              }
              if (event.type === "done" || event.type === "error") {
                for (const chunk of chunker.finish(lastId, event.type === "done" ? "stop" : "error")) controller.enqueue(chunk);
                return controller.close();
              }
            }
            if (step.ended) controller.close();
            return;
          }
          case "expired":
            controller.enqueue({
              type: "error",
              errorText: `This stream fell behind further than the event log keeps; read the session with GET /api/sessions/${sessionId}.`,
            });
            return controller.close();
          case "end":
            for (const chunk of chunker.finish(lastId, "stop")) controller.enqueue(chunk);
            return controller.close();
          case "live":
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
  return createUIMessageStreamResponse({ stream });
}
