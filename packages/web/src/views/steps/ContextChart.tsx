import type { Snapshot } from "@arbor/core";
import { memo, useMemo } from "react";
import { formatTokens } from "../../lib/format.js";
import { type ContextPoint, contextSeries } from "../../lib/session-stats.js";

const W = 600;
const H = 120;
const PAD = { left: 44, right: 8, top: 8, bottom: 18 };

/** Runs of calls a long series is drawn in (two points each); about one per unit of the chart's width. */
const RUNS = 300;
/** Up to this many calls each get a dot (with its figure on hover); more would only blot the line. */
const MAX_DOTS = 200;

/**
 * The series as drawn: every call when there are few, else the smallest and the largest context of
 * each of RUNS equal runs of calls, in their order, so a 12,000-call session draws 600 points and
 * still shows its peaks and the drops after compactions.
 */
function drawn(points: readonly ContextPoint[]): Array<{ at: number; tokens: number }> {
  if (points.length <= 2 * RUNS) return points.map((p, i) => ({ at: i, tokens: p.tokens }));
  const out: Array<{ at: number; tokens: number }> = [];
  const per = points.length / RUNS;
  const tokens = (i: number) => (points[i] as ContextPoint).tokens;
  for (let r = 0; r < RUNS; r++) {
    const from = Math.floor(r * per);
    const to = Math.min(points.length, Math.floor((r + 1) * per));
    let low = from;
    let high = from;
    for (let i = from + 1; i < to; i++) {
      if (tokens(i) < tokens(low)) low = i;
      if (tokens(i) > tokens(high)) high = i;
    }
    for (const at of low < high ? [low, high] : [high, low]) out.push({ at, tokens: tokens(at) });
  }
  return out;
}

/**
 * Context size per model call along the active path, as plain SVG (no chart library), with
 * compactions as dashed markers: where a run got expensive, and where it was cut back. Drawn again
 * only when the snapshot changes.
 */
export const ContextChart = memo(function ContextChart({ snapshot }: { snapshot: Snapshot }) {
  const { points, compactedAtEnd } = useMemo(() => contextSeries(snapshot), [snapshot]);
  const line = useMemo(() => drawn(points), [points]);
  if (points.length === 0) return null;
  const n = points.length;
  let peak = points[0] as ContextPoint;
  for (const p of points) if (p.tokens > peak.tokens) peak = p;
  const max = Math.max(1, peak.tokens);
  // Positions count calls (0 … n − 1); a compaction sits half way between the calls around it, and
  // one that no call has followed yet half a step after the last.
  const end = n - 1 + (compactedAtEnd ? 0.5 : 0);
  const x = (at: number) => PAD.left + (end === 0 ? (W - PAD.left - PAD.right) / 2 : (at / end) * (W - PAD.left - PAD.right));
  const y = (v: number) => PAD.top + (1 - v / max) * (H - PAD.top - PAD.bottom);
  const path = line.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.at).toFixed(1)},${y(p.tokens).toFixed(1)}`).join(" ");
  const compactions = [
    ...points.flatMap((p, i) => (p.afterCompaction ? [Math.max(0, i - 0.5)] : [])),
    ...(compactedAtEnd ? [n - 0.5] : []),
  ];
  return (
    <figure className="context-chart" data-testid="context-chart">
      <figcaption>
        Context size per model call: peak {formatTokens(peak.tokens)} tokens over {n} call{n === 1 ? "" : "s"}
        {compactions.length > 0 && `, ${compactions.length} compaction${compactions.length === 1 ? "" : "s"} (dashed)`}
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label="Context size over the session">
        <line className="axis" x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} />
        <text className="tick" x={PAD.left - 4} y={PAD.top + 8} textAnchor="end">
          {formatTokens(max)}
        </text>
        <text className="tick" x={PAD.left - 4} y={H - PAD.bottom} textAnchor="end">
          0
        </text>
        {compactions.map((at) => (
          <line
            key={`c${at}`}
            className="compaction-mark"
            data-testid="compaction-mark"
            x1={x(at)}
            x2={x(at)}
            y1={PAD.top}
            y2={H - PAD.bottom}
          >
            <title>Compaction</title>
          </line>
        ))}
        <path className="series" d={path} />
        {n <= MAX_DOTS &&
          points.map((p, i) => (
            <circle key={p.entryId} className="dot" cx={x(i)} cy={y(p.tokens)} r={2.5}>
              <title>
                Call {i + 1}: {p.tokens} tokens
              </title>
            </circle>
          ))}
      </svg>
    </figure>
  );
});
