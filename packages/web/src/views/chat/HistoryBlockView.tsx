import { formatTokens } from "../../lib/format.js";
import type { HistoryBlock } from "./history.js";
import { ToolCallCard } from "./ToolCallCard.js";

/** One block of the active path: a message, a compaction or branch summary, or a short note. */
export function HistoryBlockView({ block }: { block: HistoryBlock }) {
  const id = block.entry.id;
  switch (block.kind) {
    case "user":
      return (
        <article className="msg msg-user" data-entry-id={id} aria-label="User message">
          <p className="msg-text">{block.text}</p>
        </article>
      );
    case "assistant":
      return (
        <article className="msg msg-assistant" data-entry-id={id} aria-label="Assistant message">
          {block.reasoning && (
            <details className="reasoning">
              <summary>Reasoning</summary>
              <p className="msg-text">{block.reasoning}</p>
            </details>
          )}
          {block.text && <p className="msg-text">{block.text}</p>}
          {block.tools.map((t) => (
            <ToolCallCard key={t.callId} {...t} />
          ))}
          {block.error && (
            <p className="error" role="note">
              {block.error}
            </p>
          )}
        </article>
      );
    case "tool":
      return (
        <article className="msg msg-tool" data-entry-id={id} aria-label="Tool results">
          {block.tools.map((t) => (
            <ToolCallCard key={t.callId} {...t} />
          ))}
        </article>
      );
    case "compaction":
      return (
        <details className="msg msg-compaction" data-entry-id={id}>
          <summary>Compacted {formatTokens(block.tokensBefore)} tokens of earlier context</summary>
          <p className="msg-text">{block.summary}</p>
        </details>
      );
    case "branch_summary":
      return (
        <details className="msg msg-branch-summary" data-entry-id={id}>
          <summary>Summary of a branch left behind</summary>
          <p className="msg-text">{block.summary}</p>
        </details>
      );
    case "note":
      return (
        <p className="msg msg-note" data-entry-id={id}>
          {block.text}
        </p>
      );
  }
}
