import type { Entry, Snapshot } from "@arbor/core";

/** What a session's model calls used and cost, over every branch (a side branch's spend was spent too). */
export interface SessionTotals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  /** Summed over the calls that have a price. */
  cost: number;
  /** Model calls that used tokens but carry no cost: their price is unknown. */
  unpriced: number;
  /** Model calls: the steps' and the compactions' summaries. */
  calls: number;
  /** The agent's steps: its answers (a compaction's summary is a model call but not a step). */
  steps: number;
}

export interface EntryUsage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  cost: number | undefined;
}

/** The tokens and cost of one assistant entry; undefined for anything else. */
export function usageOf(entry: Entry | undefined): EntryUsage | undefined {
  if (entry?.type !== "message" || entry.message.role !== "assistant" || !entry.message.tokens) return undefined;
  const t = entry.message.tokens;
  return { input: t.input, cached: t.cacheRead, output: t.output, reasoning: t.reasoning, cost: entry.message.cost };
}

/**
 * What a compaction's own model call (the summary) used and cost, as its entry's details record
 * them; undefined for anything else, or a compaction that recorded no usage.
 */
export function compactionUsageOf(entry: Entry | undefined): EntryUsage | undefined {
  if (entry?.type !== "compaction") return undefined;
  const details = (entry.details ?? {}) as { usage?: unknown; cost?: unknown };
  const u = details.usage as Partial<Record<"input" | "output" | "reasoning" | "cacheRead", unknown>> | undefined;
  if (!u || typeof u.input !== "number" || typeof u.output !== "number") return undefined;
  return {
    input: u.input,
    cached: typeof u.cacheRead === "number" ? u.cacheRead : 0,
    output: u.output,
    reasoning: typeof u.reasoning === "number" ? u.reasoning : 0,
    cost: typeof details.cost === "number" ? details.cost : undefined,
  };
}

export function sessionTotals(snapshot: Snapshot): SessionTotals {
  const totals: SessionTotals = { input: 0, cached: 0, output: 0, reasoning: 0, cost: 0, unpriced: 0, calls: 0, steps: 0 };
  for (const entry of snapshot.entries) {
    // A compaction's summary is a model call this session paid for, as much as an answer is.
    const step = usageOf(entry);
    const u = step ?? compactionUsageOf(entry);
    if (!u) continue;
    totals.calls++;
    if (step) totals.steps++;
    totals.input += u.input;
    totals.cached += u.cached;
    totals.output += u.output;
    totals.reasoning += u.reasoning;
    if (u.cost === undefined) {
      if (u.input + u.output > 0) totals.unpriced++;
    } else totals.cost += u.cost;
  }
  return totals;
}

export interface ContextPoint {
  entryId: string;
  /** Tokens the model read on this call: new input plus what came from (or went into) the cache. */
  tokens: number;
  /** A compaction happened right before this call. */
  afterCompaction: boolean;
}

export interface ContextSeries {
  points: ContextPoint[];
  /** The path ends in a compaction that no model call has followed yet (a compaction asked for after a run). */
  compactedAtEnd: boolean;
}

/** The context size of each model call along the active path, with compactions marked on the call after them. */
export function contextSeries(snapshot: Snapshot): ContextSeries {
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
  const points: ContextPoint[] = [];
  let compacted = false;
  for (const id of snapshot.activePath) {
    const entry = byId.get(id);
    if (entry?.type === "compaction") {
      compacted = true;
      continue;
    }
    if (entry?.type !== "message" || entry.message.role !== "assistant" || !entry.message.tokens) continue;
    const t = entry.message.tokens;
    points.push({ entryId: id, tokens: t.input + t.cacheRead + t.cacheWrite, afterCompaction: compacted });
    compacted = false;
  }
  return { points, compactedAtEnd: compacted };
}
