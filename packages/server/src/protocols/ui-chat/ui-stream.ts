import type { WatchHub } from "@arbor/core";
import type { RunEventReader, RunEventStep } from "@arbor/core/events";
import { createUIMessageStreamResponse } from "ai";
import { type Ask, askOf } from "../shared/asks.js";
import { readStep, type StreamEnd, toWire, type WireStep } from "../shared/run-output.js";
import { type ArborUIChunk, RunEventChunker } from "./ui-chunks.js";
import { WatchFeed } from "./watch-feed.js";

export interface UiStreamOptions {
  sessionId: string;
  reader: RunEventReader;
  /** A step already read (the route looked ahead to pick its status). */
  first?: RunEventStep;
  /** Whether the ask still waits for its answer: the message then ends, and the client's approval continues it. */
  waitsForAnswer(ask: Ask): Promise<boolean>;
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
  const chunker = new RunEventChunker(sessionId, after);
  const feed = watch ? new WatchFeed(watch, sessionId) : undefined;
  let pending = first;
  let started = false;
  let cancelled = false;
  /** The reader's step being waited for, kept when a watch event came first. */
  let step: Promise<WireStep> | undefined;

  const fromFeed = (controller: ReadableStreamDefaultController<ArborUIChunk>) => {
    for (const event of feed?.take() ?? []) for (const chunk of chunker.watchChunks(event)) controller.enqueue(chunk);
  };
  /** Ends the message, with every watch event the run published before its end. */
  const finish = async (controller: ReadableStreamDefaultController<ArborUIChunk>, end: StreamEnd) => {
    // A stream that cannot go on says so at once; one that ends normally first sends what the watch still holds.
    if (end.kind !== "expired" && end.kind !== "failed") {
      await feed?.settle();
      fromFeed(controller);
    }
    for (const chunk of chunker.end(end)) controller.enqueue(chunk);
    feed?.stop();
    controller.close();
  };

  /** Reads the next run step (or the watch events that came first) and sends what it makes, if anything. */
  const pullOnce = async (controller: ReadableStreamDefaultController<ArborUIChunk>): Promise<void> => {
    step ??= readStep(sessionId, reader, pending);
    pending = undefined;
    const current = step;
    const next = feed?.isStarted ? await Promise.race([current, feed.next().then(() => undefined)]) : await current;
    if (next === undefined) {
      // A goal or sub-agent event came while the run is between events: send it now.
      fromFeed(controller);
      return;
    }
    step = undefined;
    if (cancelled) return;
    const firstId = next.events.find((e) => e.id !== undefined)?.id;
    if (feed && !feed.isStarted && firstId !== undefined) await feed.start(firstId - 1);
    fromFeed(controller);
    for (const e of next.events) {
      for (const chunk of toWire(chunker, e)) controller.enqueue(chunk);
      const ask = askOf(e.event);
      if (ask !== undefined && (await waitsForAnswer(ask))) {
        reader.close();
        return finish(controller, { kind: "waiting", ask });
      }
      if (e.event.type === "done" || e.event.type === "error") {
        return finish(controller, { kind: "ended", status: e.event.type });
      }
    }
    if (next.end) return finish(controller, next.end);
  };

  const stream = new ReadableStream<ArborUIChunk>(
    {
      async start() {
        if (feed && after !== undefined) await feed.start(after);
      },
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(chunker.start(chunker.lastEventId));
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
