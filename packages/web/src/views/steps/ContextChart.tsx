import type { Snapshot } from "@arbor/core";
import { useMemo } from "react";
import { formatTokens } from "../../lib/format.js";
import { contextSeries } from "../../lib/session-stats.js";

const W = 600;
const H = 120;
const PAD = { left: 44, right: 8, top: 8, bottom: 18 };

/**
 * Context size per model call along the active path, as plain SVG (a line of a few hundred points
 * needs no chart library), with compactions as dashed markers: where a run got expensive, and where
 * it was cut back.
 */
export function ContextChart({ snapshot }: { snapshot: Snapshot }) {
  const { points, compactedAtEnd } = useMemo(() => contextSeries(snapshot), [snapshot]);
  if (points.length === 0) return null;
  const max = Math.max(1, ...points.map((p) => p.tokens));
  const n = points.length;
  // Positions count calls (0 … n − 1); a compaction sits half way between the calls around it, and
  // one that no call has followed yet half a step after the last.
  const end = n - 1 + (compactedAtEnd ? 0.5 : 0);
  const x = (at: number) => PAD.left + (end === 0 ? (W - PAD.left - PAD.right) / 2 : (at / end) * (W - PAD.left - PAD.right));
  const y = (v: number) => PAD.top + (1 - v / max) * (H - PAD.top - PAD.bottom);
  const line = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.tokens).toFixed(1)}`).join(" ");
  const compactions = [
    ...points.flatMap((p, i) => (p.afterCompaction ? [Math.max(0, i - 0.5)] : [])),
    ...(compactedAtEnd ? [n - 0.5] : []),
  ];
  const peak = points.reduce((a, b) => (b.tokens > a.tokens ? b : a));
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
        <path className="series" d={line} />
        {points.map((p, i) => (
          <circle key={p.entryId} className="dot" cx={x(i)} cy={y(p.tokens)} r={2.5}>
            <title>
              Call {i + 1}: {p.tokens} tokens
            </title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}
