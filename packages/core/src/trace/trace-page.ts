import type { TraceMessage } from "./message-trace.js";
import { parseTraceTime } from "./trace-time.js";

export interface TracePageOptions {
  limit: number;
  /** Only messages created strictly before this time (nanoseconds since the epoch, see parseTraceTime). */
  before?: bigint;
}

export interface TracePage {
  /** Newest first. */
  messages: TraceMessage[];
  /** The oldest message's `createdAt`: pass it as `before` for the next page; absent on the last page. */
  nextCursor?: string;
}

function key(message: TraceMessage): bigint {
  // Trace timestamps are written by traceTimestamp, so they always parse.
  return parseTraceTime(message.createdAt) ?? 0n;
}

/**
 * One page of a trace, newest first by `createdAt`, which is unique on a path, so paging by
 * "strictly before the last one seen" neither repeats nor skips a message while new ones arrive.
 */
export function pageTraceMessages(messages: readonly TraceMessage[], options: TracePageOptions): TracePage {
  const keyed = messages.map((m) => ({ m, k: key(m) }));
  keyed.sort((a, b) => (a.k === b.k ? 0 : a.k > b.k ? -1 : 1));
  const before = options.before;
  const eligible = before === undefined ? keyed : keyed.filter((x) => x.k < before);
  const page = eligible.slice(0, options.limit).map((x) => x.m);
  const last = page.at(-1);
  return eligible.length > page.length && last ? { messages: page, nextCursor: last.createdAt } : { messages: page };
}
