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

/** A trace sorted newest first, with each message's time parsed once: pages are cut from it without sorting again. */
export interface SortedTrace {
  readonly messages: readonly TraceMessage[];
  readonly keys: readonly bigint[];
}

export function sortTrace(messages: readonly TraceMessage[]): SortedTrace {
  const keyed = messages.map((m) => ({ m, k: key(m) }));
  keyed.sort((a, b) => (a.k === b.k ? 0 : a.k > b.k ? -1 : 1));
  return { messages: keyed.map((x) => x.m), keys: keyed.map((x) => x.k) };
}

/**
 * One page of a sorted trace: the newest messages strictly before `before` (found by binary search,
 * so a page of a 12,000-message trace costs what a page of a short one does).
 */
export function pageSortedTrace(trace: SortedTrace, options: TracePageOptions): TracePage {
  const { keys } = trace;
  const before = options.before;
  // Keys fall as the index grows: the first index whose key is below `before`.
  let lo = 0;
  if (before !== undefined) {
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as bigint) < before) hi = mid;
      else lo = mid + 1;
    }
  }
  const page = trace.messages.slice(lo, lo + options.limit);
  const last = page.at(-1);
  return keys.length - lo > page.length && last ? { messages: page, nextCursor: last.createdAt } : { messages: page };
}

/**
 * One page of a trace, newest first by `createdAt`, which is unique on a path, so paging by
 * "strictly before the last one seen" neither repeats nor skips a message while new ones arrive.
 */
export function pageTraceMessages(messages: readonly TraceMessage[], options: TracePageOptions): TracePage {
  return pageSortedTrace(sortTrace(messages), options);
}
