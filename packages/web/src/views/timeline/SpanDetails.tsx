import type { TimelineSpan } from "../../api/timeline-wire.js";
import { formatCost, formatDuration } from "../../lib/format.js";
import { onLinkClick, sessionPath } from "../../lib/router.js";

const KIND_NAMES: Record<TimelineSpan["kind"], string> = {
  model: "Model call",
  tool: "Tool call",
  compaction: "Compaction",
  subagent: "Sub-agent",
};

/** What one clicked bar stands for: its times, tokens and cost, and where to read more. */
export function SpanDetails({ span, t0, onClose }: { span: TimelineSpan; t0: number; onClose: () => void }) {
  const rows: Array<[string, string]> = [
    ["Starts at", `+${formatDuration(span.start - t0) || "0 ms"}`],
    ["Duration", formatDuration(span.duration_ms) || "0 ms"],
  ];
  switch (span.kind) {
    case "model":
      if (span.model) rows.push(["Model", span.model]);
      if (span.tokens) {
        rows.push(["Input tokens", String(span.tokens.input)], ["Output tokens", String(span.tokens.output)]);
        if (span.tokens.cacheRead) rows.push(["Cached input tokens", String(span.tokens.cacheRead)]);
        if (span.tokens.reasoning) rows.push(["Reasoning tokens", String(span.tokens.reasoning)]);
      }
      rows.push(["Cost", span.cost !== undefined ? formatCost(span.cost) || "$0" : "price unknown"]);
      if (span.is_error) rows.push(["Outcome", "failed"]);
      break;
    case "tool":
      rows.push(["Tool", span.tool], ["Call id", span.call_id]);
      rows.push(["Waiting for permission", span.wait_ms > 0 ? formatDuration(span.wait_ms) : "none"]);
      rows.push(["Outcome", span.is_error ? "error" : "ok"]);
      break;
    case "compaction":
      rows.push(["Context before", `${span.tokens_before} tokens`]);
      if (span.tokens) rows.push(["Summary tokens (in / out)", `${span.tokens.input} / ${span.tokens.output}`]);
      if (span.cost !== undefined) rows.push(["Cost", formatCost(span.cost) || "$0"]);
      break;
    case "subagent":
      rows.push(["Task", span.label], ["Status", span.open ? "running" : span.status], ["Sub-trace", span.sub_session_id]);
      break;
  }
  const subPath = span.kind === "subagent" ? sessionPath(span.sub_session_id) : undefined;
  return (
    <section className="span-details" aria-label={`${KIND_NAMES[span.kind]} details`} data-testid="span-details">
      <header>
        <h2>
          {KIND_NAMES[span.kind]}: {span.label}
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        Entry <code>{span.entry_id}</code>
        {subPath && (
          <>
            {" · "}
            <a href={subPath} onClick={(e) => onLinkClick(e, subPath)}>
              Open the sub-trace
            </a>
          </>
        )}
      </p>
    </section>
  );
}
