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
 * is checked; what repeats along a batch (a run's events take turns among a few types) is only not
 * checked twice.
 */
export function checkEventInputs(inputs: unknown, maxBytes: number): CheckedEvent[] {
  if (!Array.isArray(inputs)) throw new ArborError("invalid_input", "appendEvents takes an array of events.");
  const checked: CheckedEvent[] = new Array(inputs.length);
  // The types already checked in this batch: a step's events cycle through five or so, so the last
  // one alone was seldom the next one's, and the pattern ran for nearly every event.
  const validTypes: string[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const e: unknown = inputs[i];
    if (typeof e !== "object" || e === null)
      throw new ArborError("invalid_input", `${eventAt(i, inputs.length)} is not an object.`);
    const { type: given, data, timestamp } = e as Record<string, unknown>;
    let type: string;
    if (typeof given === "string" && validTypes.includes(given)) type = given;
    else if (typeof given !== "string" || !TYPE_PATTERN.test(given)) {
      throw new ArborError(
        "invalid_input",
        `${eventAt(i, inputs.length)} needs a type: lowercase letters, digits, _ . - (at most 64), e.g. message_added.`,
      );
    } else {
      type = given;
      if (validTypes.length < 16) validTypes.push(given);
    }
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
