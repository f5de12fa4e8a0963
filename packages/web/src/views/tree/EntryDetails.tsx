import type { Entry } from "@arbor/core";
import { useEffect, useState } from "react";
import { api } from "../../api/client.js";
import { anyJson, parseSessionMeta } from "../../api/wire.js";
import { formatCost, formatDuration, formatTime } from "../../lib/format.js";
import { navigate, sessionPath } from "../../lib/router.js";
import { steeringText } from "../../lib/steering.js";
import { useAction } from "../../lib/use-action.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { GoalReplayButtons } from "../common/ReplayGoalButton.js";
import { SubagentResultCard } from "../common/SubagentResultCard.js";
import { TextField } from "../common/TextField.js";
import { describeEntry, entryTag } from "./flatten.js";

interface Props {
  sessionId: string;
  entry: Entry;
  label: string | undefined;
  isLeaf: boolean;
  onPath: boolean;
  reload: () => Promise<void>;
  onContinue: (from: { entryId: string; description: string }) => void;
  onForked: (sessionId: string) => void;
  /** Called once the leaf moved here (this entry's switch button is then disabled and loses the focus). */
  onSwitched?: () => void;
  /** Called with what a revert changed, to say so above the tree. */
  onReverted?: (message: string) => void;
}

function contentOf(entry: Entry): string {
  switch (entry.type) {
    case "message":
      return entry.message.content
        .map((p) => {
          if (p.type === "reasoning") return `[reasoning] ${p.text}`;
          if (p.type === "text") {
            const steered = entry.message.role === "user" ? steeringText(p.text) : undefined;
            return steered === undefined ? p.text : `[steering, sent while the agent worked] ${steered}`;
          }
          if (p.type === "tool-call") return `→ ${p.toolName}(${JSON.stringify(p.input)})`;
          if (p.type === "tool-result") {
            const v = p.output.value;
            return `← ${p.toolName}: ${typeof v === "string" ? v : JSON.stringify(v)}`;
          }
          return `[${p.type}]`;
        })
        .join("\n\n");
    case "compaction":
    case "branch_summary":
      return entry.summary;
    default:
      return JSON.stringify(entry, null, 2);
  }
}

/** The selected entry: what it holds, its label, and the tree operations that start from it. */
export function EntryDetails({
  sessionId,
  entry,
  label,
  isLeaf,
  onPath,
  reload,
  onContinue,
  onForked,
  onSwitched,
  onReverted,
}: Props) {
  const [draft, setDraft] = useState(label ?? "");
  const { busy, error, run: act } = useAction();
  useEffect(() => setDraft(label ?? ""), [label]);
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;

  const m = entry.type === "message" ? entry.message : undefined;
  return (
    <section className="entry-details" aria-label="Selected entry">
      <h2>
        {entryTag(entry)} {label && <span className="label-chip">{label}</span>}
      </h2>
      <dl>
        <dt>Entry</dt>
        <dd>
          <code>{entry.id}</code>
        </dd>
        <dt>Time</dt>
        <dd>{formatTime(entry.timestamp)}</dd>
        <dt>Position</dt>
        <dd>{isLeaf ? "the leaf (current position)" : onPath ? "on the active path" : "on another branch"}</dd>
        {m?.model && (
          <>
            <dt>Model</dt>
            <dd>{m.model}</dd>
          </>
        )}
        {m?.tokens && (
          <>
            <dt>Tokens</dt>
            <dd>
              {m.tokens.input} in{m.tokens.cacheRead ? ` · ${m.tokens.cacheRead} cached` : ""} · {m.tokens.output} out
              {m.tokens.reasoning ? ` · ${m.tokens.reasoning} reasoning` : ""}
            </dd>
          </>
        )}
        {m?.durationMs !== undefined && (
          <>
            <dt>Duration</dt>
            <dd>{formatDuration(m.durationMs)}</dd>
          </>
        )}
        {m?.cost ? (
          <>
            <dt>Cost</dt>
            <dd>{formatCost(m.cost)}</dd>
          </>
        ) : null}
        {m?.goalId && (
          <>
            <dt>Goal</dt>
            <dd>{m.goalId}</dd>
          </>
        )}
      </dl>
      <GoalReplayButtons sessionId={sessionId} entry={entry} onStarted={() => navigate(sessionPath(sessionId, "chat"))} />
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => onContinue({ entryId: entry.id, description: describeEntry(entry).slice(0, 60) || entry.id })}
        >
          Continue from here
        </button>
        <button
          type="button"
          disabled={busy || isLeaf}
          onClick={() =>
            void act(async () => {
              await api(`${base}/leaf`, anyJson, { json: { entry_id: entry.id } });
              await reload();
              onSwitched?.();
            })
          }
        >
          Switch branch here
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void act(async () => {
              const meta = await api(`${base}/fork`, parseSessionMeta, { json: { entry_id: entry.id } });
              onForked(meta.id);
            })
          }
        >
          Fork to new session
        </button>
        <button
          type="button"
          disabled={busy || !onPath}
          title="Put the workspace's files back as they were before this entry, and move the leaf here"
          onClick={() =>
            void act(async () => {
              const r = await api(`${base}/revert`, anyJson, { json: { to: entry.id } });
              const files = (r as { files?: number }).files ?? 0;
              onReverted?.(`Reverted to before ${entry.id}: ${files} file${files === 1 ? "" : "s"} restored.`);
              await reload();
            })
          }
        >
          Revert files to before this
        </button>
      </div>
      <form
        className="label-form"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await api(`${base}/labels`, anyJson, { json: { entry_id: entry.id, label: draft.trim() || null } });
            await reload();
          });
        }}
      >
        <TextField
          label="Label"
          className="grow"
          value={draft}
          maxLength={200}
          placeholder="e.g. good-state"
          onValue={setDraft}
        />
        <button type="submit" disabled={busy}>
          {draft.trim() ? "Save label" : "Clear label"}
        </button>
      </form>
      <ErrorAlert error={error} />
      {entry.type === "subagent_result" ? (
        <SubagentResultCard
          subSessionId={entry.subSessionId}
          status={entry.status}
          summary={entry.summary}
          metadata={entry.metadata}
        />
      ) : (
        <pre className="entry-content">{contentOf(entry)}</pre>
      )}
    </section>
  );
}
