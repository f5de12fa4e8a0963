import type { RunHandle } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { AskRef } from "../shared/asks.js";
import { readStep, toWire, type WireStep } from "../shared/run-output.js";
import { type ResponseRef, responseId } from "./response-ids.js";
import { type ResponseHead, ResponseWire, type StreamEvent } from "./response-wire.js";

/** A response that ended with the run waiting on the client: what the request continuing it must answer, and where it reads on. */
export interface Pause {
  ref: ResponseRef;
  /** The last run event the paused response sent. */
  after: number;
  calls: string[];
  asks: AskRef[];
  clientTools: string[];
  handle?: RunHandle;
}

/** How many paused responses a server remembers; past it the oldest is forgotten (its run's wait times out). */
const MAX_PAUSED = 10_000;

/** The paused responses of one mounted protocol, by response id. */
export class PausedResponses {
  private readonly paused = new Map<string, Pause>();

  get(id: string): Pause | undefined {
    return this.paused.get(id);
  }

  set(id: string, pause: Pause): void {
    this.paused.set(id, pause);
    if (this.paused.size > MAX_PAUSED) this.paused.delete(this.paused.keys().next().value as string);
  }

  delete(id: string): void {
    this.paused.delete(id);
  }

  clear(): void {
    this.paused.clear();
  }
}

/** One response to produce from a run's events. */
export interface ResponseRun {
  ref: ResponseRef;
  head: Omit<ResponseHead, "id">;
  reader: RunEventReader;
  /** A step read already (to learn the turn's entry, or a failure to answer as an error). */
  first?: WireStep;
  clientTools: ReadonlySet<string>;
  /** The run, when this server drives it (needed to remove an unstored conversation once it ends). */
  handle?: RunHandle;
}

/** What happens when a response ends, paused or not. */
export interface ResponseEnd {
  paused: PausedResponses;
  /** The tool call ids of the session's latest assistant message (the step whose calls run now). */
  stepCalls(sessionId: string): Promise<string[]>;
  /** The response finished (not paused): an unstored conversation is removed. */
  finished(run: ResponseRun, status: "completed" | "failed"): Promise<void>;
}

/**
 * A response's stream events, read off its run until the run ends or waits on the client (then
 * the pause is remembered for the request that answers it). Closing the generator early (the client
 * went away) closes the reader; the run goes on.
 */
export async function* responseEvents(run: ResponseRun, end: ResponseEnd): AsyncGenerator<StreamEvent, ResponseWire> {
  const id = responseId(run.ref);
  const wire = new ResponseWire({ ...run.head, id }, run.clientTools);
  const sessionId = run.ref.sessionId;
  let after: number | undefined;
  try {
    yield* wire.start();
    let step = run.first ?? (await readStep(sessionId, run.reader));
    for (;;) {
      for (const e of step.events) {
        yield* toWire(wire, e);
        if (e.id !== undefined) after = e.id;
        if (wire.status !== "in_progress") break;
        if (wire.paused() && after !== undefined && (wire.asks.length > 0 || wire.settled(await end.stepCalls(sessionId)))) {
          end.paused.set(id, {
            ref: run.ref,
            after,
            calls: wire.waitingCalls(),
            asks: [...wire.asks],
            clientTools: [...run.clientTools],
            ...(run.handle ? { handle: run.handle } : {}),
          });
          yield* wire.finish("completed", true);
          return wire;
        }
      }
      if (wire.status !== "in_progress") break;
      if (step.end) {
        yield* wire.end(step.end);
        break;
      }
      step = await readStep(sessionId, run.reader);
    }
  } finally {
    run.reader.close();
  }
  if (wire.status !== "in_progress") await end.finished(run, wire.status);
  return wire;
}

/** The events as the Responses API's server-sent events: `event: <type>` then `data: <json>`. */
export function sseOf(events: AsyncGenerator<StreamEvent, unknown>, sessionHeader: Record<string, string>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await events.next();
        if (next.done) {
          controller.close();
          return;
        }
        const event = next.value;
        controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
      },
      async cancel() {
        await events.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", ...sessionHeader },
  });
}

/** Every event drained; the response as it ended. */
export async function drain(events: AsyncGenerator<StreamEvent, ResponseWire>): Promise<ResponseWire> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}
