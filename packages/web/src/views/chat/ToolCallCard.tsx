import { formatDuration, prettyJson, truncate } from "../../lib/format.js";
import { DiffView } from "../common/DiffView.js";
import { FoldedText } from "../common/FoldedText.js";
import { editDiff, goalSummary, writtenFile } from "../common/tool-view.js";

export interface ToolCallCardProps {
  callId: string;
  tool: string;
  input: string;
  status: "running" | "done" | "error";
  output?: string | undefined;
  durationMs?: number | undefined;
  cached?: boolean | undefined;
}

const STATUS_LABEL = { running: "running", done: "done", error: "failed" } as const;

/**
 * One tool call: name, status, duration and arguments up front; an edit shows its diff and a goal
 * call what it changed; the output is folded (it can be long).
 */
export function ToolCallCard({ callId, tool, input, status, output, durationMs, cached }: ToolCallCardProps) {
  const diff = editDiff(tool, input);
  const written = writtenFile(tool, input);
  const goal = goalSummary(tool, input);
  return (
    <section className={`tool-call status-${status}`} aria-label={`Tool call ${tool}`} data-call-id={callId}>
      <header className="tool-call-head">
        <span className="tool-name">{tool}</span>
        <span className={`badge status-${status}`} data-testid="tool-status">
          {status === "running" && <span className="spinner" aria-hidden="true" />}
          {STATUS_LABEL[status]}
        </span>
        {durationMs !== undefined && <span className="muted tool-duration">{formatDuration(durationMs)}</span>}
        {cached && <span className="badge">cached</span>}
        <code className="tool-args-preview" title={input}>
          {goal ?? truncate(input, 80)}
        </code>
      </header>
      {diff && <DiffView diff={diff.diff} label={`Edit of ${diff.path}`} />}
      <details className="tool-details">
        <summary>Arguments{output !== undefined ? " and output" : ""}</summary>
        <h4>Arguments</h4>
        {written ? (
          <>
            <p className="muted">
              Writes <code>{written.path}</code>:
            </p>
            <FoldedText text={written.content} className="tool-args" />
          </>
        ) : (
          <FoldedText text={prettyJson(input)} className="tool-args" />
        )}
        {output !== undefined && (
          <>
            <h4>{status === "error" ? "Error" : "Output"}</h4>
            <FoldedText text={output} className="tool-output" />
          </>
        )}
      </details>
    </section>
  );
}
