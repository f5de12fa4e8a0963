import type { Entry, Snapshot } from "@arbor/core";
import type { TimelineLane } from "../../api/timeline-wire.js";
import { steeringText } from "../../lib/steering.js";

/** One run of the session on the timeline: from its prompt to its last span. */
export interface RunWindow {
  /** 1-based, in the order the runs happened. */
  number: number;
  /** The run's prompt, first line. */
  label: string;
  /** The axis: the run's first span's start to its last span's end. */
  start: number;
  end: number;
  spanCount: number;
  /** Spans that start in [from, to) are the run's: from its prompt to the next run's. */
  from: number;
  to: number;
}

function promptText(entry: Entry): string | undefined {
  if (entry.type !== "message" || entry.message.role !== "user" || entry.message.synthetic) return undefined;
  const content = entry.message.content;
  const text = typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join("");
  // A steering message joins the run it was sent to; it does not start one.
  if (steeringText(text) !== undefined) return undefined;
  return text.trim().split("\n")[0] ?? "";
}

/**
 * The runs of a session as windows of its timeline: each user prompt on the active path starts one,
 * and a span belongs to the run it started in. Hours can pass between two runs; drawn on one axis,
 * that idle time shrinks every bar to a sliver, so the timeline shows one run at a time. Runs that
 * left no span (one that failed before its first call) are left out. Pure.
 */
export function runWindows(snapshot: Snapshot | undefined, lane: TimelineLane): RunWindow[] {
  const byId = new Map(snapshot?.entries.map((e) => [e.id, e]));
  const starts: Array<{ at: number; label: string }> = [];
  for (const id of snapshot?.activePath ?? []) {
    const entry = byId.get(id);
    const label = entry && promptText(entry);
    if (entry && label !== undefined) starts.push({ at: Date.parse(entry.timestamp), label });
  }
  if (starts.length === 0) starts.push({ at: Number.NEGATIVE_INFINITY, label: "" });
  const windows: RunWindow[] = [];
  starts.forEach((s, i) => {
    const from = i === 0 ? Number.NEGATIVE_INFINITY : s.at;
    const to = starts[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    const spans = lane.spans.filter((span) => span.start >= from && span.start < to);
    if (spans.length === 0) return;
    windows.push({
      number: i + 1,
      label: s.label,
      start: Math.min(...spans.map((x) => x.start)),
      end: Math.max(...spans.map((x) => x.end)),
      spanCount: spans.length,
      from,
      to,
    });
  });
  return windows;
}

/** The lane cut to one run: its spans only, on an axis from the run's first span to its last. */
export function laneOfRun(lane: TimelineLane, run: RunWindow | undefined): TimelineLane {
  if (!run) return lane;
  return { ...lane, start: run.start, end: run.end, spans: lane.spans.filter((s) => s.start >= run.from && s.start < run.to) };
}
