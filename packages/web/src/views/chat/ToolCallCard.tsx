import { formatDuration, prettyJson, truncate } from "../../lib/format.js";

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

/** One tool call: name, status, duration and arguments up front; the output folded (it can be long). */
export function ToolCallCard({ callId, tool, input, status, output, durationMs, cached }: ToolCallCardProps) {
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
          {truncate(input, 80)}
        </code>
      </header>
      <details className="tool-details">
        <summary>Arguments{output !== undefined ? " and output" : ""}</summary>
        <h4>Arguments</h4>
        <pre className="tool-args">{prettyJson(input)}</pre>
        {output !== undefined && (
          <>
            <h4>{status === "error" ? "Error" : "Output"}</h4>
            <pre className="tool-output">{output}</pre>
          </>
        )}
      </details>
    </section>
  );
}
