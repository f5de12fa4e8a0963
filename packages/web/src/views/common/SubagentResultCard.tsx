import { useMemo } from "react";
import { onLinkClick, sessionPath } from "../../lib/router.js";
import { subagentDetails } from "../../lib/subagent-metadata.js";
import { RichText } from "./RichText.js";
import { TableHead } from "./TableHead.js";

const SOURCE_NAMES: Record<string, string> = {
  final_text: "its final answer",
  last_assistant_message: "its last message",
  status: "its status",
};
const sourceName = (s: string) => SOURCE_NAMES[s] ?? s;

/**
 * A sub-agent's result as a reader wants it: its status, its summary as text, a link into its
 * sub-trace, and what the result kept of the branch (the tools it ran, the evidence they returned,
 * its timeline, and where the summary came from), folded under the summary.
 */
export function SubagentResultCard({
  subSessionId,
  status,
  summary,
  metadata,
}: {
  subSessionId: string;
  status: string;
  summary: string;
  /** The `subagent_result` entry's metadata. */
  metadata?: unknown;
}) {
  const path = sessionPath(subSessionId);
  const details = useMemo(() => subagentDetails(metadata), [metadata]);
  const kept = details.routes.length + details.evidence.length + details.processEvents.length > 0;
  return (
    <section className="subagent-result" aria-label="Sub-agent result">
      <header className="tool-call-head">
        <span className="tool-name">Sub-agent</span>
        <span className={`badge status-${status === "completed" ? "done" : status === "running" ? "running" : "error"}`}>
          {status}
        </span>
        <a href={path} onClick={(e) => onLinkClick(e, path)}>
          Open sub-trace
        </a>
      </header>
      <RichText text={summary || "(no summary)"} />
      {details.source && (
        <p className="muted subagent-source" data-testid="subagent-source">
          Summary from {sourceName(details.source.selected)}
          {details.source.fallback ? " (fallback)" : ""}; the branch offered{" "}
          {details.source.offered.map(sourceName).join(", ") || "nothing"}.
        </p>
      )}
      {kept && (
        <details className="subagent-details" data-testid="subagent-details">
          <summary>
            Tools: {details.routes.map((r) => `${r.tool} × ${r.calls}`).join(", ") || "none"} · {details.evidence.length} evidence
            · {details.processEvents.length} events
          </summary>
          {details.routes.length > 0 && (
            <table className="subagent-routes">
              <caption>Tools the branch ran</caption>
              <TableHead columns={["tool", "calls", "failed", "time"]} />
              <tbody>
                {details.routes.map((r) => (
                  <tr key={r.tool}>
                    <td>{r.tool}</td>
                    <td>{r.calls}</td>
                    <td>{r.errors}</td>
                    <td>{Math.round(r.totalDurationMs)} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {details.evidence.length > 0 && (
            <>
              <h4>Evidence</h4>
              <ul className="subagent-evidence">
                {details.evidence.map((e, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the evidence of one stored result never moves.
                  <li key={i}>
                    <code>{e.tool}</code> {e.ok ? "" : "(failed) "}
                    <span className="muted">{e.excerpt}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          {details.processEvents.length > 0 && (
            <>
              <h4>Timeline</h4>
              <ol className="subagent-events">
                {details.processEvents.map((e, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the events of one stored result never move.
                  <li key={i}>{e.label}</li>
                ))}
              </ol>
            </>
          )}
        </details>
      )}
    </section>
  );
}
