import type { RunEvent } from "@arbor/core";
import type { RunEventReader, RunEventStep } from "@arbor/core/events";
import { safeErrorMessage } from "../../errors.js";
import { type Ask, askOf } from "./asks.js";

/** One run event as a reader hands it over: parsed, with its id in the session's event log and its JSON as logged. */
export interface WireEvent {
  event: RunEvent;
  /** Absent when the store could not log the event: it cannot be resumed after. */
  id: number | undefined;
  json: string;
  /**
   * Set when the logged JSON shows the event is no ask, so `toWire` need not parse it to look. An
   * event built without its logged JSON leaves it out and is looked at.
   */
  notAsk?: true;
}

/** Why a protocol's stream of one run stops. */
export type StreamEnd =
  /** The run's `done` or `error` was the last event. */
  | { kind: "ended"; status: "done" | "error" }
  /** The run waits for an answer the client gives with its next request (protocols whose messages end at an ask). */
  | { kind: "waiting"; ask: Ask }
  /** Nothing more to send: the reader started after the run's last event, or no run is going. */
  | { kind: "closed" }
  /** The reader fell further behind than the event log keeps: exactly-once is no longer possible. */
  | { kind: "expired"; sessionId: string }
  /** The event log could not be read; `message` names the failure without paths. */
  | { kind: "failed"; sessionId: string; message: string };

/**
 * How a protocol writes one run's events on its wire. Every protocol implements it; `Out` is its
 * unit (an SSE message, a UI message chunk, a progress notification). Asks go to `ask`, in the
 * protocol's approval shape, never to `event`.
 */
export interface RunEventWire<Out> {
  /** A run event that is not an ask. */
  event(e: WireEvent): Out[];
  /** A permission ask or a plan waiting for approval, as the protocol's client is asked to answer it. */
  ask(ask: Ask, e: WireEvent): Out[];
  /** The stream's ending. */
  end(end: StreamEnd): Out[];
}

/** What one event becomes on `wire`: asks in its approval shape, everything else as events. */
export function toWire<Out>(wire: RunEventWire<Out>, e: WireEvent): Out[] {
  const ask = e.notAsk ? undefined : askOf(e.event);
  return ask === undefined ? wire.event(e) : wire.ask(ask, e);
}

/**
 * False when the logged JSON cannot be an ask: every ask's type ends in `_request`, and a quote inside
 * a JSON string is escaped, so `_request"` appears in the text of every ask (and seldom elsewhere, which
 * costs only a parse). A token thus goes on the SSE wire without being parsed.
 */
function mayBeAsk(json: string): boolean {
  return json.includes('_request"');
}

/** A logged frame as a wire event, parsed only when a protocol first looks at the event itself. */
function wireEvent(frame: { id: number | undefined; json: string }): WireEvent {
  let event: RunEvent | undefined;
  return {
    id: frame.id,
    json: frame.json,
    ...(mayBeAsk(frame.json) ? {} : { notAsk: true as const }),
    get event() {
      event ??= JSON.parse(frame.json) as RunEvent;
      return event;
    },
  };
}

/** A reader's next events, and how the stream ends when it does after them. */
export interface WireStep {
  events: WireEvent[];
  end?: StreamEnd;
}

/**
 * The reader's next step in wire terms. `lookedAhead` is a step the caller read already (to pick a
 * status before answering). A failed read is an ending the client can act on, not a torn stream.
 */
export async function readStep(sessionId: string, reader: RunEventReader, lookedAhead?: RunEventStep): Promise<WireStep> {
  let step: RunEventStep;
  try {
    step = lookedAhead !== undefined && lookedAhead.kind !== "live" ? lookedAhead : await reader.next();
  } catch (err) {
    return { events: [], end: { kind: "failed", sessionId, message: safeErrorMessage(err) } };
  }
  switch (step.kind) {
    case "frames": {
      const events = step.frames.map(wireEvent);
      if (!step.ended) return { events };
      return { events, end: { kind: "ended", status: events.at(-1)?.event.type === "done" ? "done" : "error" } };
    }
    case "expired":
      return { events: [], end: { kind: "expired", sessionId } };
    case "end":
      return { events: [], end: { kind: "closed" } };
    case "live":
      // Only a look-ahead (`next(false)`) answers this; a plain read waits for the events instead.
      return readStep(sessionId, reader);
    default: {
      const never: never = step;
      throw new Error(`unknown step ${String(never)}`);
    }
  }
}
