import { memo } from "react";
import { formatTokens } from "../../lib/format.js";
import { steeringMark } from "../../lib/steering.js";
import { DiffView } from "../common/DiffView.js";
import { ReplayGoalButton } from "../common/ReplayGoalButton.js";
import { RichText } from "../common/RichText.js";
import { SubagentResultCard } from "../common/SubagentResultCard.js";
import type { HistoryBlock, ImageView } from "./history.js";
import { ToolCallCard } from "./ToolCallCard.js";

function Images({ images }: { images: ImageView[] }) {
  if (images.length === 0) return null;
  return (
    <div className="msg-images">
      {images.map((img, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one stored message never move.
        <img key={i} src={img.src} alt={img.alt} loading="lazy" className="md-image" />
      ))}
    </div>
  );
}

/**
 * One block of the active path: a message, a compaction or branch summary, a step's file changes, or
 * a short note. Blocks come from the snapshot and stay the same objects until it changes, so a
 * render of the chat (a streamed token, "show earlier") leaves the blocks already shown alone.
 */
export const HistoryBlockView = memo(function HistoryBlockView({
  block,
  sessionId,
}: {
  block: HistoryBlock;
  /** The stored session the block belongs to: its goal calls can then be edited and replayed. */
  sessionId?: string | undefined;
}) {
  const id = block.entry.id;
  switch (block.kind) {
    case "user":
      return (
        <article
          className={block.steering ? "msg msg-user msg-steering" : "msg msg-user"}
          data-entry-id={id}
          aria-label={block.steering ? "User message (steering)" : "User message"}
        >
          <p className="msg-text">{block.text}</p>
          <Images images={block.images} />
          {block.steering && <p className="steer-mark">{steeringMark("read")}</p>}
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
          {block.text && <RichText text={block.text} />}
          <Images images={block.images} />
          {block.tools.map((t) => (
            <ToolCallCard
              key={t.callId}
              {...t}
              action={
                t.tool === "goal" && sessionId !== undefined ? (
                  <ReplayGoalButton sessionId={sessionId} messageId={id} callId={t.callId} input={t.input} />
                ) : undefined
              }
            />
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
    case "patch":
      return (
        <details className="msg msg-patch" data-entry-id={id}>
          <summary>
            Changed {block.files.length} file{block.files.length === 1 ? "" : "s"}:{" "}
            {block.files.map((f) => `${f.path} (${f.status})`).join(", ")}
          </summary>
          {block.files.map((f) =>
            f.diff ? (
              <DiffView key={f.path} diff={f.diff} label={`${f.path} (${f.status})`} />
            ) : (
              <p key={f.path} className="muted">
                {f.path} ({f.status}): no diff recorded
              </p>
            ),
          )}
        </details>
      );
    case "subagent_result":
      return (
        <div className="msg" data-entry-id={id}>
          <SubagentResultCard
            subSessionId={block.subSessionId}
            status={block.status}
            summary={block.summary}
            metadata={block.metadata}
          />
        </div>
      );
    case "compaction":
      return (
        <details className="msg msg-compaction" data-entry-id={id}>
          <summary>Compacted {formatTokens(block.tokensBefore)} tokens of earlier context</summary>
          <RichText text={block.summary} />
        </details>
      );
    case "branch_summary":
      return (
        <details className="msg msg-branch-summary" data-entry-id={id}>
          <summary>Summary of a branch left behind</summary>
          <RichText text={block.summary} />
        </details>
      );
    case "note":
      return (
        <p className="msg msg-note" data-entry-id={id}>
          {block.text}
        </p>
      );
  }
});
