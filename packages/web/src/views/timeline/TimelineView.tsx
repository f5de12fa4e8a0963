import type { Snapshot } from "@arbor/core";
import { Bot, ChevronDown, ChevronRight, Hourglass, Minimize2, Sparkles, Wrench } from "lucide-react";
import { type KeyboardEvent, memo, useCallback, useEffect, useMemo, useState } from "react";
import { api } from "../../api/client.js";
import { parseTimeline, type TimelineLane, type TimelineSpan } from "../../api/timeline-wire.js";
import { formatCost, formatDuration, formatTokens } from "../../lib/format.js";
import { runs } from "../../lib/runs.js";
import { toggled } from "../../lib/toggle-set.js";
import { ShowMore } from "../common/ShowMore.js";
import { SpanDetails } from "./SpanDetails.js";
import { place, spanCost, spanTokens, type TimelineRow, ticks, timelineRows } from "./timeline-rows.js";
import { laneOfRun, runWindows } from "./timeline-runs.js";

const ICONS = { model: Sparkles, tool: Wrench, compaction: Minimize2, subagent: Bot } as const;
const LEGEND = [
  ["model", "model"],
  ["tool", "tool"],
  ["wait", "waiting for permission"],
  ["compaction", "compaction"],
  ["subagent", "sub-agent"],
] as const;
/** Rows drawn at first and per "show more": a long session's thousands of calls stay fast to open. */
const PAGE = 400;

/**
 * The run timeline: every model call, tool call, compaction and sub-agent of a run as a bar on one
 * time axis, sub-agents' own calls nested under them. A session of several runs shows its latest
 * by default, with a picker for the others (or all on one axis). A tool's wait for a permission
 * answer is drawn apart from the tool's own time. Click (or Enter on) a row to see its details.
 */
export function TimelineView({ sessionId, snapshot }: { sessionId: string; snapshot?: Snapshot | undefined }) {
  const [whole, setLane] = useState<TimelineLane | undefined>();
  /** The run picked: its number, "all", or undefined for the latest. */
  const [picked, setPicked] = useState<number | "all" | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [version, setVersion] = useState(0);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<string | undefined>();
  const [shown, setShown] = useState(PAGE);

  // A run that ends adds spans: read the timeline again.
  useEffect(() => runs.onRunEnd((id) => id === sessionId && setVersion((v) => v + 1)), [sessionId]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version forces a reload.
  useEffect(() => {
    let live = true;
    api(`/api/sessions/${encodeURIComponent(sessionId)}/timeline`, parseTimeline).then(
      (l) => live && setLane(l),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [sessionId, version]);

  const windows = useMemo(() => (whole ? runWindows(snapshot, whole) : []), [whole, snapshot]);
  const run = picked === "all" ? undefined : (windows.find((w) => w.number === picked) ?? windows[windows.length - 1]);
  const lane = useMemo(() => (whole ? laneOfRun(whole, run) : undefined), [whole, run]);
  const rows = useMemo(() => (lane ? timelineRows(lane, collapsed) : []), [lane, collapsed]);
  // What the whole run spent, sub-agents included (collapsing a lane hides rows, not its spending).
  const spent = useMemo(() => {
    let tokens = 0;
    let cost = 0;
    for (const row of lane ? timelineRows(lane, new Set()) : []) {
      tokens += spanTokens(row.span) ?? 0;
      cost += spanCost(row.span) ?? 0;
    }
    return { tokens, cost };
  }, [lane]);
  // Stable, so a click re-renders the two rows whose selection changed, not every row drawn.
  const toggle = useCallback((key: string) => setCollapsed((prev) => toggled(prev, key)), []);
  const select = useCallback((key: string) => setSelected((prev) => (prev === key ? undefined : key)), []);
  if (error)
    return (
      <p role="alert" className="error">
        {error}
      </p>
    );
  if (!lane) return <p className="muted">Loading the timeline…</p>;
  if (rows.length === 0) return <p className="muted">No model or tool calls in this session yet.</p>;

  const t0 = lane.start;
  const total = Math.max(1, lane.end - lane.start);
  const selectedRow = rows.find((r) => r.key === selected);
  // Up and Down move between rows, as in a list.
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>("button.span-row")];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.min(buttons.length - 1, Math.max(0, at + (e.key === "ArrowDown" ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  return (
    <div className="timeline">
      {windows.length > 1 && (
        <label className="timeline-run">
          Run{" "}
          <select
            value={picked === "all" ? "all" : String(run?.number ?? "")}
            onChange={(e) => setPicked(e.target.value === "all" ? "all" : Number(e.target.value))}
          >
            {windows.map((w) => (
              <option key={w.number} value={w.number}>
                {w.number} of {windows.length}: {w.label || "(no prompt)"} · {formatDuration(w.end - w.start) || "0 ms"}
              </option>
            ))}
            <option value="all">All runs on one axis</option>
          </select>
        </label>
      )}
      <p className="timeline-summary">
        <span data-testid="timeline-totals">
          {formatDuration(total)} in all · {rows.length} {rows.length === 1 ? "span" : "spans"} ·{" "}
          {formatTokens(spent.tokens) || "0"} tokens
          {spent.cost > 0 ? ` · ${formatCost(spent.cost)}` : ""}
        </span>
        {/* One box per entry, so a narrow screen wraps the legend between entries, never inside one. */}
        <span className="legend">
          {LEGEND.map(([kind, name]) => (
            <span key={kind} className="legend-item">
              <span className={`swatch ${kind}`} /> {name}
            </span>
          ))}
        </span>
      </p>
      <div className="timeline-axis" aria-hidden="true">
        <span className="timeline-label-col" />
        <span className="timeline-track">
          {ticks(total).map((t) => (
            // Labels sit centred on their lines, but the first starts at its line and one near the end
            // finishes at it, so none runs off the axis (ticks are a fifth of it apart or more).
            <span
              key={t}
              className={t === 0 ? "tick" : t / total > 0.92 ? "tick end" : "tick mid"}
              style={{ left: `${(t / total) * 100}%` }}
            >
              {tickLabel(t, total)}
            </span>
          ))}
        </span>
      </div>
      <ul className="timeline-rows" aria-label="Timeline" onKeyDown={onKeyDown}>
        {rows.slice(0, shown).map((row) => (
          <Row
            key={row.key}
            row={row}
            t0={t0}
            total={total}
            selected={selected === row.key}
            collapsed={collapsed.has(row.key)}
            onSelect={select}
            onToggle={toggle}
          />
        ))}
      </ul>
      <ShowMore page={PAGE} remaining={rows.length - shown} noun="spans" onMore={() => setShown((n) => n + PAGE)} />
      {selectedRow && <SpanDetails span={selectedRow.span} t0={t0} onClose={() => setSelected(undefined)} />}
    </div>
  );
}

/** One span's row: its fold button (a lane's) and its label and bar, a button that selects it. */
const Row = memo(function Row(props: {
  row: TimelineRow;
  t0: number;
  total: number;
  selected: boolean;
  collapsed: boolean;
  onSelect: (key: string) => void;
  onToggle: (key: string) => void;
}) {
  const { row, t0, total, selected, collapsed, onSelect, onToggle } = props;
  return (
    <li className={`timeline-row kind-${row.span.kind}`}>
      <span className="timeline-label-col" style={{ paddingLeft: `${row.depth * 1.25}rem` }}>
        {row.lane ? (
          <button
            type="button"
            className="icon-button"
            aria-expanded={!collapsed}
            aria-label={`${collapsed ? "Show" : "Hide"} the calls of ${row.span.label}`}
            onClick={() => onToggle(row.key)}
          >
            {collapsed ? <ChevronRight size={14} /> : <ChevronDown size={14} />}
          </button>
        ) : (
          <span className="icon-spacer" />
        )}
      </span>
      <button type="button" className="span-row" aria-pressed={selected} onClick={() => onSelect(row.key)}>
        <SpanLabel span={row.span} />
        <SpanBar span={row.span} t0={t0} total={total} />
      </button>
    </li>
  );
});

function SpanLabel({ span }: { span: TimelineSpan }) {
  const Icon = ICONS[span.kind];
  const tokens = spanTokens(span);
  const cost = spanCost(span);
  const facts = [
    formatDuration(span.duration_ms) || "0 ms",
    span.kind === "tool" && span.wait_ms > 0 ? `+ ${formatDuration(span.wait_ms)} waiting` : "",
    tokens !== undefined ? `${formatTokens(tokens)} tok` : "",
    cost ? formatCost(cost) : "",
  ].filter(Boolean);
  return (
    <span className="span-label">
      <Icon size={14} aria-hidden="true" />
      <span className="span-name">{span.label}</span>
      <span className="span-facts" data-testid="span-facts">
        {facts.join(" · ")}
      </span>
    </span>
  );
}

function SpanBar({ span, t0, total }: { span: TimelineSpan; t0: number; total: number }) {
  const whole = place(span.start, span.end, t0, total);
  const wait = span.kind === "tool" && span.wait_ms > 0 ? place(span.start, span.start + span.wait_ms, t0, total) : undefined;
  const work = wait ? place(span.start + (span.kind === "tool" ? span.wait_ms : 0), span.end, t0, total) : whole;
  return (
    <span className="timeline-track">
      {wait && (
        <span className="bar wait" data-testid="wait-bar" style={{ left: `${wait.left}%`, width: `${wait.width}%` }}>
          <Hourglass size={10} aria-hidden="true" />
        </span>
      )}
      <span
        className={`bar ${span.kind}${"is_error" in span && span.is_error ? " failed" : ""}`}
        style={{ left: `${work.left}%`, width: `${work.width}%` }}
      />
    </span>
  );
}

/** A tick's label: on an axis of a few milliseconds, tenths, so neighbouring ticks never read the same. */
function tickLabel(t: number, total: number): string {
  if (t === 0) return "0 ms";
  return total < 10 ? `${t.toFixed(1)} ms` : formatDuration(t);
}
