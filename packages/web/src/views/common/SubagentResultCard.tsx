import { onLinkClick, sessionPath } from "../../lib/router.js";
import { RichText } from "./RichText.js";

/** A sub-agent's result as a reader wants it: its status, its summary as text, and a link into its sub-trace. */
export function SubagentResultCard({ subSessionId, status, summary }: { subSessionId: string; status: string; summary: string }) {
  const path = sessionPath(subSessionId);
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
    </section>
  );
}
