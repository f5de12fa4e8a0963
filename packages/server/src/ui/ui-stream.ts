import type { RunEvent, WatchHub } from "@arbor/core";
import type { RunEventReader, RunEventStep } from "@arbor/core/events";
import { createUIMessageStreamResponse } from "ai";
import { safeErrorMessage } from "../errors.js";
import { type ArborUIChunk, RunEventChunker } from "./ui-chunks.js";
import { WatchFeed } from "./watch-feed.js";

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
  /**
   * The trace watch whose goal and sub-agent events join the stream as `data-*` parts. They are
   * read from the log after `after`, or, without it, from just before the first run event read.
   */
  watch?: WatchHub;
}

/**
 * A UI message stream response (the `ai` package's SSE framing, headers and `[DONE]`) of the run
 * events `reader` gives, with the session's trace watch events between them. Pull-based like the
 * run stream: events are read only when the client has taken the previous chunks, and a client that
 * leaves stops this reader only, never the run.
 */
export function uiStreamResponse({
  sessionId,
  reader,
  first,
  waitsForAnswer,
  after,
  watch,
  opening = [],
}: UiStreamOptions): Response {
  const chunker = new RunEventChunker(sessionId);
  const feed = watch ? new WatchFeed(watch, sessionId) : undefined;
  let pending = first;
  let lastId = after;
  let started = false;
  let cancelled = false;
  /** The reader's step being waited for, kept when a watch event came first. */
  let step: Promise<RunEventStep> | undefined;

  const fromFeed = (controller: ReadableStreamDefaultController<ArborUIChunk>) => {
    for (const event of feed?.take() ?? []) for (const chunk of chunker.watchChunks(event)) controller.enqueue(chunk);
  };
  /** Ends the message, with every watch event the run published before its end. */
  const finish = async (controller: ReadableStreamDefaultController<ArborUIChunk>, reason: "stop" | "tool-calls" | "error") => {
    await feed?.settle();
    fromFeed(controller);
    for (const chunk of chunker.finish(lastId, reason)) controller.enqueue(chunk);
    feed?.stop();
    controller.close();
  };
  const end = (controller: ReadableStreamDefaultController<ArborUIChunk>) => {
    feed?.stop();
    controller.close();
  };

  /** Reads the next run step (or the watch events that came first) and sends what it makes, if anything. */
  const pullOnce = async (controller: ReadableStreamDefaultController<ArborUIChunk>): Promise<void> => {
    let next: RunEventStep;
    try {
      if (pending !== undefined && pending.kind !== "live") next = pending;
      else {
        step ??= reader.next();
        const current = step;
        const got = feed?.isStarted ? await Promise.race([current, feed.next().then(() => undefined)]) : await current;
        if (got === undefined) {
          // A goal or sub-agent event came while the run is between events: send it now.
          fromFeed(controller);
          return;
        }
        next = got;
      }
    } catch (err) {
      // The store failed mid-stream: an ending the client can show, not a torn stream.
      controller.enqueue({ type: "error", errorText: `Reading the run's events failed: ${safeErrorMessage(err)}` });
      return end(controller);
    }
    pending = undefined;
    step = undefined;
    if (cancelled) return;
    switch (next.kind) {
      case "frames": {
        const firstId = next.frames.find((f) => f.id !== undefined)?.id;
        if (feed && !feed.isStarted && firstId !== undefined) await feed.start(firstId - 1);
        fromFeed(controller);
        for (const frame of next.frames) {
          const event = JSON.parse(frame.json) as RunEvent;
          if (frame.id !== undefined) lastId = frame.id;
          for (const chunk of chunker.chunks(event)) controller.enqueue(chunk);
          if (waitsForAnswer(event)) {
            // The run waits for the answer; the client sends it with its next request, which continues from here.
            reader.close();
            return finish(controller, "tool-calls");
          }
          if (event.type === "done" || event.type === "error") {
            return finish(controller, event.type === "done" ? "stop" : "error");
          }
        }
        if (next.ended) end(controller);
        return;
      }
      case "expired":
        controller.enqueue({
          type: "error",
          errorText: `This stream fell behind further than the event log keeps; read the session with GET /api/sessions/${sessionId}.`,
        });
        return end(controller);
      case "end":
        return finish(controller, "stop");
      case "live":
        // Only a step looked ahead by the route can be `live`; the reader is asked again.
        return;
      default: {
        const never: never = next;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  };

  const stream = new ReadableStream<ArborUIChunk>(
    {
      async start() {
        if (feed && after !== undefined) await feed.start(after);
      },
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(chunker.start(lastId));
          for (const chunk of opening) controller.enqueue(chunk);
          return;
        }
        // A pull must enqueue or close: with no chunk the stream would not ask again. Watch events
        // that make no part (message summaries, say) leave nothing, so read on until something does.
        const counted: ReadableStreamDefaultController<ArborUIChunk> = {
          get desiredSize() {
            return controller.desiredSize;
          },
          enqueue(chunk) {
            sent = true;
            controller.enqueue(chunk);
          },
          close() {
            sent = true;
            controller.close();
          },
          error(reason) {
            sent = true;
            controller.error(reason);
          },
        };
        let sent = false;
        while (!sent && !cancelled) await pullOnce(counted);
      },
      cancel() {
        cancelled = true;
        feed?.stop();
        reader.close();
      },
    },
    { highWaterMark: 0 },
  );
  return createUIMessageStreamResponse({ stream });
}
