import type { TimelineLane, TimelineSpan } from "../../api/timeline-wire.js";

/** One row of the waterfall: a span at a nesting depth, with the lane it opens (a sub-agent's). */
export interface TimelineRow {
  key: string;
  depth: number;
  span: TimelineSpan;
  /** The sub-agent's own lane, when the span is a sub-agent whose session could be read. */
  lane?: TimelineLane | undefined;
}

function spanKey(laneId: string, span: TimelineSpan): string {
  switch (span.kind) {
    case "tool":
      return `${laneId}/tool/${span.call_id}`;
    case "subagent":
      return `${laneId}/subagent/${span.sub_session_id}`;
    case "model":
    case "compaction":
      return `${laneId}/${span.kind}/${span.entry_id}`;
  }
}

/**
 * The rows in display order: a lane's spans by start, each sub-agent's lane right under its span
 * unless collapsed. Parallel branches thus sit one under the other with overlapping bars.
 */
export function timelineRows(root: TimelineLane, collapsed: ReadonlySet<string>): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const walk = (lane: TimelineLane, depth: number) => {
    const byId = new Map(lane.lanes.map((l) => [l.session_id, l]));
    for (const span of lane.spans) {
      const sub = span.kind === "subagent" ? byId.get(span.sub_session_id) : undefined;
      const key = spanKey(lane.session_id, span);
      rows.push({ key, depth, span, lane: sub });
      if (sub && !collapsed.has(key)) walk(sub, depth + 1);
    }
  };
  walk(root, 0);
  return rows;
}

/** Position of [start, end] on an axis from `t0` over `total` ms, as percentages. */
export function place(start: number, end: number, t0: number, total: number): { left: number; width: number } {
  const span = Math.max(1, total);
  const left = Math.min(100, Math.max(0, ((start - t0) / span) * 100));
  const width = Math.min(100 - left, Math.max(0, ((end - start) / span) * 100));
  return { left, width };
}

/** About five round tick values (ms from the start) over the axis. */
export function ticks(total: number): number[] {
  if (total <= 0) return [0];
  const raw = total / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = 0; t <= total; t += step) out.push(t);
  return out;
}

/** Tokens a span spent (input + output), if it says. */
export function spanTokens(span: TimelineSpan): number | undefined {
  if (span.kind !== "model" && span.kind !== "compaction") return undefined;
  return span.tokens ? span.tokens.input + span.tokens.output : undefined;
}

export function spanCost(span: TimelineSpan): number | undefined {
  return span.kind === "model" || span.kind === "compaction" ? span.cost : undefined;
}
