import type { RunEvent } from "../model/run-events.js";
import type { EventInput, StoredEvent } from "../store/event-records.js";

/**
 * Run-stream events share the session's event log with watch events and debug records; the prefix
 * keeps them apart, so a watcher replays only watch events and a stream reader only run events,
 * while both read one log whose ids order everything that happened in the session.
 */
export const RUN_EVENT_PREFIX = "run.";

/** One run event as a reader is sent it: its log id (undefined when it could not be logged) and its JSON. */
export interface RunEventFrame {
  /** The event's id in the session's event log: what a client resumes after. */
  id: number | undefined;
  json: string;
  /** The run's last event (`done` or `error`). */
  terminal: boolean;
  /**
   * About how many characters the frame holds, for the tail's memory budget; absent: `json`'s length.
   * A frame that makes its JSON on demand says it, so measuring it does not make the JSON.
   */
  readonly chars?: number;
}

export function isTerminalRunEvent(event: { type: string }): boolean {
  return event.type === "done" || event.type === "error";
}

export function isRunEventRecord(record: StoredEvent): boolean {
  return record.type.startsWith(RUN_EVENT_PREFIX);
}

/** The record types of streamed deltas, made once rather than for each delta. */
const DELTA_RECORD_TYPES = { token: `${RUN_EVENT_PREFIX}token`, reasoning: `${RUN_EVENT_PREFIX}reasoning` } as const;

/**
 * The log record of a run event: `run.<type>`, its other fields as data. Deltas are taken apart at a
 * site of their own: one site seeing every event's shape goes megamorphic, several times slower.
 */
export function runEventInput(event: RunEvent): EventInput {
  if (event.type === "token" || event.type === "reasoning") {
    const { type, ...data } = event;
    return { type: DELTA_RECORD_TYPES[type], data };
  }
  const { type, ...data } = event;
  return { type: `${RUN_EVENT_PREFIX}${type}`, data };
}

/** A logged run event as the event it was (type first, as the run emitted it). */
export function runEventFromRecord(record: StoredEvent): RunEvent {
  return { type: record.type.slice(RUN_EVENT_PREFIX.length), ...record.data } as RunEvent;
}

export function frameOfRecord(record: StoredEvent): RunEventFrame {
  const event = runEventFromRecord(record);
  return { id: record.id, json: JSON.stringify(event), terminal: isTerminalRunEvent(event) };
}

/**
 * The frames of a batch of run events the store just logged as `records` (one each, in order), from
 * the log data `runEventInput` made of them: the JSON `frameOfRecord` gives for each record (type
 * first, then the data's fields), without copying each event back together to serialize it.
 */
export function framesOfLogged(
  events: readonly RunEvent[],
  inputs: readonly EventInput[],
  records: readonly StoredEvent[],
): RunEventFrame[] {
  const frames: RunEventFrame[] = new Array(records.length);
  let type: string | undefined;
  let head = "";
  for (let i = 0; i < records.length; i++) {
    const event = events[i] as RunEvent;
    if (event.type !== type) {
      type = event.type;
      head = `{"type":${JSON.stringify(type)}`;
    }
    const id = (records[i] as StoredEvent).id;
    const data = (inputs[i] as EventInput).data;
    const terminal = isTerminalRunEvent(event);
    const chars = charsOfValues(data);
    if (chars >= 0) frames[i] = new LoggedFrame(id, head, data, terminal, head.length + chars);
    else frames[i] = { id, json: frameJson(head, data), terminal };
  }
  return frames;
}

/** `head` (the type) and then the data's fields: `runEventInput` took `type` out of the data, so none stands for it. */
function frameJson(head: string, data: Record<string, unknown>): string {
  const json = JSON.stringify(data);
  return json === "{}" ? `${head}}` : `${head},${json.slice(1)}`;
}

/**
 * -1 when a field is an object (a copy of the fields could then be changed through someone else's
 * reference); otherwise about the characters of the fields' names and text values.
 */
function charsOfValues(data: Record<string, unknown>): number {
  let chars = 0;
  for (const key in data) {
    const value = data[key];
    if (typeof value === "object" && value !== null) return -1;
    chars += key.length + (typeof value === "string" ? value.length : 8);
  }
  return chars;
}

/**
 * A logged event's frame, its JSON made when a reader first asks for it: most runs are read from their
 * handle, never from the log's tail, so serializing every event a second time for readers that never
 * come (the store already serialized it for the log) was a tenth of the event log's cost. Nothing can
 * change the JSON meanwhile: the data is the log record's own copy of the event's fields
 * (`runEventInput`), and none of them is an object another holder could change.
 */
class LoggedFrame implements RunEventFrame {
  private made: string | undefined;
  private data: Record<string, unknown> | undefined;

  constructor(
    readonly id: number,
    private readonly head: string,
    data: Record<string, unknown>,
    readonly terminal: boolean,
    readonly chars: number,
  ) {
    this.data = data;
  }

  get json(): string {
    if (this.made === undefined) {
      this.made = frameJson(this.head, this.data ?? {});
      this.data = undefined;
    }
    return this.made;
  }
}

/**
 * An event the store refused as too large (a huge tool output) is logged cut down, so the stream
 * keeps its order and its ending; the whole output stays in the session's entries.
 */
export function shrunkRunEvent(event: RunEvent, maxChars: number): RunEvent {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    out[key] =
      typeof value === "string" && value.length > maxChars ? `${value.slice(0, maxChars)}… [cut for the event log]` : value;
  }
  return out as RunEvent;
}
