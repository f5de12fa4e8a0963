import { ArborError } from "../errors.js";

/**
 * One record of a session's event log: what happened, in order, for watchers and resuming streams. `id` increases strictly
 * within the session and is never reused, also after retention has dropped older records. The store
 * keeps `type` and `data` as given; what they mean is the caller's (the watch events of events/).
 */
export interface StoredEvent {
  id: number;
  type: string;
  /** ISO-8601 with milliseconds. */
  timestamp: string;
  data: Record<string, unknown>;
}

export interface EventInput {
  type: string;
  data: Record<string, unknown>;
  /** Default: now. */
  timestamp?: string;
}

/** A span of event times, ISO-8601: from `from` (included) to `to` (excluded; absent: no end). */
export interface EventWindow {
  from: string;
  to?: string;
}

/** What a blanked record's data becomes (see `Store.purgeEvents`). */
export const PURGED_EVENT_DATA = { purged: true } as const;

/** Whether a record's time falls in the window (ISO-8601 times as every store writes them compare as text). */
export function inEventWindow(timestamp: string, window: EventWindow): boolean {
  return timestamp >= window.from && (window.to === undefined || timestamp < window.to);
}

export interface ListEventsOptions {
  /** Only events with a greater id (default 0: from the first kept). */
  after?: number;
  /** At most this many, oldest first (default 1,000, at most 10,000). */
  limit?: number;
}

/** Records kept per session unless the store is opened with another `maxEventsPerSession`. */
export const DEFAULT_MAX_EVENTS_PER_SESSION = 100_000;

const TYPE_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

/** An event that passed the checks, with its data's JSON (made once for the size check, reused to write it). */
export type CheckedEvent = EventInput & { dataJson: string };

/** How an error names the event it is about: made only for the error, not for every event checked. */
function eventAt(i: number, of: number): string {
  return of > 1 ? `Event ${i}` : "The event";
}

/**
 * Checks a batch before anything is written; each event comes back with its data's JSON. Every event
 * is checked; what repeats along a batch (a run's deltas share their type) is only not checked twice.
 */
export function checkEventInputs(inputs: unknown, maxBytes: number): CheckedEvent[] {
  if (!Array.isArray(inputs)) throw new ArborError("invalid_input", "appendEvents takes an array of events.");
  const checked: CheckedEvent[] = new Array(inputs.length);
  let validType: string | undefined;
  for (let i = 0; i < inputs.length; i++) {
    const e: unknown = inputs[i];
    if (typeof e !== "object" || e === null)
      throw new ArborError("invalid_input", `${eventAt(i, inputs.length)} is not an object.`);
    const { type: given, data, timestamp } = e as Record<string, unknown>;
    let type: string;
    if (given === validType && validType !== undefined) type = validType;
    else if (typeof given !== "string" || !TYPE_PATTERN.test(given)) {
      throw new ArborError(
        "invalid_input",
        `${eventAt(i, inputs.length)} needs a type: lowercase letters, digits, _ . - (at most 64), e.g. message_added.`,
      );
    } else type = validType = given;
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      throw new ArborError("invalid_input", `${eventAt(i, inputs.length)} (${type}) needs data: a JSON object.`);
    }
    if (timestamp !== undefined && (typeof timestamp !== "string" || Number.isNaN(Date.parse(timestamp)))) {
      throw new ArborError(
        "invalid_input",
        `${eventAt(i, inputs.length)} (${type}) has a timestamp that is not an ISO-8601 time.`,
      );
    }
    const dataJson = JSON.stringify(data);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: only text that long can be over the limit.
    if (dataJson.length * 3 > maxBytes) {
      const size = Buffer.byteLength(dataJson);
      if (size > maxBytes) {
        throw new ArborError(
          "entry_too_large",
          `${eventAt(i, inputs.length)} (${type}) is ${size} bytes, over the ${maxBytes}-byte limit.`,
        );
      }
    }
    checked[i] =
      timestamp === undefined
        ? { type, data: data as Record<string, unknown>, dataJson }
        : { type, data: data as Record<string, unknown>, timestamp: timestamp as string, dataJson };
  }
  return checked;
}

/**
 * Characters of JSON lines per piece of a batch's text. A run's batch is up to a megabyte: made as one
 * string it lands in V8's large-object space, fresh pages each time, and measured 3.6 ms of CPU per
 * megabyte to flatten (half of it the kernel mapping pages) against 0.3 ms to write. Pieces this size
 * (at most 64 KB even as two-byte text) are ordinary young objects.
 */
export const EVENT_TEXT_PIECE = 32 * 1024;

/**
 * The JSON lines of a batch of stored events, each ending in a newline, in pieces of whole lines of
 * about `EVENT_TEXT_PIECE` characters (a longer line is a piece of its own). With `dataJson`, each
 * event's data JSON made at the check: the text `JSON.stringify` gives, with the type and time (which
 * repeat along a batch) quoted once each.
 */
export function storedEventLines(events: readonly StoredEvent[], dataJson?: readonly string[]): string[] {
  const pieces: string[] = [];
  let out = "";
  let type: string | undefined;
  let typeJson = "";
  let timestamp: string | undefined;
  let timestampJson = "";
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as StoredEvent;
    let line: string;
    if (dataJson === undefined) line = `${JSON.stringify(e)}\n`;
    else {
      if (e.type !== type) {
        type = e.type;
        typeJson = JSON.stringify(type);
      }
      if (e.timestamp !== timestamp) {
        timestamp = e.timestamp;
        timestampJson = JSON.stringify(timestamp);
      }
      line = `{"id":${e.id},"type":${typeJson},"timestamp":${timestampJson},"data":${dataJson[i]}}\n`;
    }
    if (out.length > 0 && out.length + line.length > EVENT_TEXT_PIECE) {
      pieces.push(out);
      out = "";
    }
    out += line;
  }
  if (out.length > 0) pieces.push(out);
  return pieces;
}

export function checkListEventsOptions(opts: ListEventsOptions | undefined): { after: number; limit: number } {
  const after = opts?.after ?? 0;
  const limit = opts?.limit ?? 1000;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new ArborError("invalid_input", `after must be a non-negative integer event id, not ${String(after)}.`);
  }
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
    throw new ArborError("invalid_input", `limit must be an integer from 1 to 10000, not ${String(limit)}.`);
  }
  return { after, limit };
}

/** Numbers a checked batch after `lastId`. */
export function numberEvents(inputs: readonly EventInput[], lastId: number, now: string): StoredEvent[] {
  return inputs.map((e, i) => ({ id: lastId + 1 + i, type: e.type, timestamp: e.timestamp ?? now, data: e.data }));
}
