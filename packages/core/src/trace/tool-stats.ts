import type { TraceMessage, TraceToolCall } from "./message-trace.js";

/** The tool performance view: durations per tool over the calls that finished. */
export interface ToolStats {
  name: string;
  /** Calls with a result; calls still waiting for one have no duration yet and are not counted. */
  count: number;
  failures: number;
  /** Nearest-rank percentiles and the maximum, in milliseconds. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  totalMs: number;
}

/** The nearest-rank percentile of ascending `sorted` (non-empty): the smallest value with p% at or below it. */
export function nearestRankPercentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

function* calls(messages: readonly TraceMessage[]) {
  for (const message of messages) {
    for (const step of message.agentSteps) {
      for (const call of step.toolCalls) yield { message, step, call };
    }
  }
}

/** Per-tool stats, by tool name. Pure. */
export function toolStats(messages: readonly TraceMessage[]): ToolStats[] {
  const byName = new Map<string, { durations: number[]; failures: number }>();
  for (const { call } of calls(messages)) {
    if (!call.result) continue;
    const s = byName.get(call.name) ?? { durations: [], failures: 0 };
    byName.set(call.name, s);
    s.durations.push(call.durationMs);
    if (!call.result.success) s.failures++;
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, s]) => {
      const sorted = s.durations.sort((a, b) => a - b);
      return {
        name,
        count: sorted.length,
        failures: s.failures,
        p50Ms: nearestRankPercentile(sorted, 50),
        p95Ms: nearestRankPercentile(sorted, 95),
        maxMs: sorted.at(-1) ?? 0,
        totalMs: sorted.reduce((n, d) => n + d, 0),
      };
    });
}

export interface ToolCallQuery {
  /** true: only failed calls; false: only successful ones; absent: every finished or pending call. */
  failed?: boolean;
  /** Only calls of this tool. */
  tool?: string;
}

/** A tool call found in the trace, with where it is. */
export interface FoundToolCall {
  messageId: string;
  requestId: string;
  iteration: number;
  /** The step's timestamp. */
  timestamp: string;
  call: TraceToolCall;
}

/** Tool calls matching `query`, oldest first. A pending call (no result) is neither failed nor not. Pure. */
export function findToolCalls(messages: readonly TraceMessage[], query: ToolCallQuery = {}): FoundToolCall[] {
  const out: FoundToolCall[] = [];
  for (const { message, step, call } of calls(messages)) {
    if (query.tool !== undefined && call.name !== query.tool) continue;
    if (query.failed !== undefined && (!call.result || call.result.success === query.failed)) continue;
    out.push({ messageId: message.id, requestId: message.requestId, iteration: step.iteration, timestamp: step.timestamp, call });
  }
  return out;
}
