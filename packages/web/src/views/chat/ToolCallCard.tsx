import { type ReactNode, useLayoutEffect, useRef } from "react";
import { formatDuration, prettyJson, truncate } from "../../lib/format.js";
import { DiffView } from "../common/DiffView.js";
import { FoldedText } from "../common/FoldedText.js";
import {
  endedMetadata,
  outputTail,
  progressFraction,
  progressSummary,
  progressTitle,
  type ToolProgressView,
} from "../common/tool-progress.js";
import { editDiff, goalSummary, writtenFile } from "../common/tool-view.js";

export interface ToolCallCardProps {
  callId: string;
  tool: string;
  input: string;
  status: "running" | "done" | "error";
  output?: string | undefined;
  durationMs?: number | undefined;
  cached?: boolean | undefined;
  /** The latest progress report of a call streaming now. */
  progress?: ToolProgressView | undefined;
  /** The metadata kept in a finished call's result. */
  metadata?: Record<string, unknown> | undefined;
  /** A control of the call's own, in its header (a goal call's "Edit & replay"). */
  action?: ReactNode;
}

const STATUS_LABEL = { running: "running", done: "done", error: "failed" } as const;

/**
 * One tool call: name, status, duration and arguments up front; an edit shows its diff and a goal
 * call what it changed; the output is folded (it can be long).
 */
export function ToolCallCard({
  callId,
  tool,
  input,
  status,
  output,
  durationMs,
  cached,
  progress,
  metadata,
  action,
}: ToolCallCardProps) {
  const diff = editDiff(tool, input, metadata);
  // A call that ended during a live run has no stored result yet: what it reported last stands in.
  const note =
    status === "running" ? undefined : progressSummary(endedMetadata(tool, metadata, progress?.metadata, output), false);
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
        {action}
      </header>
      {status === "running" && progress && <LiveProgress tool={tool} input={input} progress={progress} />}
      {note && (
        <p className="muted tool-note" data-testid="tool-note">
          {note}
        </p>
      )}
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

/** A running call's latest report: a line of what it says, a bar when it knows how much is left, and a command's output so far. */
function LiveProgress({ tool, input, progress }: { tool: string; input: string; progress: ToolProgressView }) {
  const line = [progressTitle(progress.title, input), progressSummary(progress.metadata, true)].filter(Boolean).join(" — ");
  const fraction = progressFraction(progress.metadata);
  const tail = outputTail(progress.metadata);
  return (
    <div className="tool-progress" data-testid="tool-progress">
      {(line || fraction !== undefined) && (
        <p className="muted tool-progress-line">
          {fraction !== undefined && <progress value={fraction} max={1} aria-label={`${tool} progress`} />}
          {line}
          {fraction !== undefined && ` (${Math.round(fraction * 100)}%)`}
        </p>
      )}
      {tail !== undefined && tail !== "" && <OutputTail tool={tool} text={tail} />}
    </div>
  );
}

/**
 * The end of a command's output as it is written, kept scrolled to its newest line unless the
 * reader scrolled up to look at an earlier one.
 */
function OutputTail({ tool, text }: { tool: string; text: string }) {
  const ref = useRef<HTMLElement>(null);
  const pinned = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls after each new piece of output.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [text]);
  return (
    // Focusable so the scrolled-off lines can be reached from the keyboard; not announced line by
    // line (the run around it is a live region), since a busy command would drown everything else.
    <section
      ref={ref}
      className="tool-tail"
      data-testid="tool-tail"
      aria-label={`${tool} output so far`}
      aria-live="off"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard only if it takes focus.
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
      }}
    >
      <pre>{text}</pre>
    </section>
  );
}
