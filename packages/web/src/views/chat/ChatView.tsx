import type { Snapshot } from "@arbor/core";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { api } from "../../api/client.js";
import { answerElicitation } from "../../api/elicitations.js";
import type { ChatBody } from "../../api/run-stream.js";
import { type PendingPermission, parsePermissions } from "../../api/wire.js";
import { runs, useRun } from "../../lib/runs.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { Composer, type ComposerValue } from "./Composer.js";
import { ElicitationCard } from "./ElicitationCard.js";
import { HistoryBlockView } from "./HistoryBlockView.js";
import { buildHistory, type HistoryBlock } from "./history.js";
import { LiveRun } from "./LiveRun.js";
import { PermissionCard } from "./PermissionCard.js";
import { isActive, type PermissionAsk } from "./run-state.js";
import { useElicitations } from "./use-elicitations.js";

/** Long sessions show their latest blocks first; the tree view is the place for the whole of a huge one. */
const SHOWN_BLOCKS = 200;

interface Props {
  /** Undefined on the home page: the first message starts a new session. */
  sessionId?: string | undefined;
  snapshot?: Snapshot | undefined;
  continueFrom?: { entryId: string; description: string } | undefined;
  onCancelContinue?: () => void;
  /** A new session's id, once its run names it. */
  onSessionStarted?: (sessionId: string) => void;
}

/**
 * The snapshot may already hold part of the run that is streaming (its prompt and finished steps):
 * the live view shows those, so history stops before the run's own user message.
 */
function withoutLiveTurn(history: HistoryBlock[], prompt: string | undefined): HistoryBlock[] {
  if (prompt === undefined) return history;
  for (let i = history.length - 1; i >= 0; i--) {
    const block = history[i] as HistoryBlock;
    // Steering messages belong to the run they were sent to, after its prompt.
    if (block.kind !== "user" || block.steering) continue;
    // A run attached after it started has no prompt of its own: its turn is the last one.
    return prompt === "" || block.text === prompt ? history.slice(0, i) : history;
  }
  return history;
}

/** The model the session's last answer used: a run without a model keeps it, so the composer shows it. */
function sessionModel(snapshot: Snapshot | undefined): string | undefined {
  if (!snapshot) return undefined;
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
  for (let i = snapshot.activePath.length - 1; i >= 0; i--) {
    const e = byId.get(snapshot.activePath[i] as string);
    if (e?.type === "model_change") return e.model;
    if (e?.type === "message" && e.message.role === "assistant" && e.message.model) return e.message.model;
  }
  return undefined;
}

export function ChatView({ sessionId, snapshot, continueFrom, onCancelContinue, onSessionStarted }: Props) {
  const [homeKey, setHomeKey] = useState<string | undefined>();
  const run = useRun(sessionId ?? homeKey);
  const running = isActive(run);
  const [shown, setShown] = useState(SHOWN_BLOCKS);
  const [pending, setPending] = useState<PendingPermission[]>([]);
  const [sendError, setSendError] = useState<string | undefined>();
  // Read once the session is known to exist: an unknown one is a 404 page that asks the server nothing more.
  const [elicitations, answeredElicitation] = useElicitations(snapshot ? sessionId : undefined, run);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  const currentModel = useMemo(() => sessionModel(snapshot), [snapshot]);
  const allHistory = useMemo(() => (snapshot ? buildHistory(snapshot) : []), [snapshot]);
  const history = useMemo(() => withoutLiveTurn(allHistory, run?.prompt), [allHistory, run?.prompt]);
  const visible = history.slice(Math.max(0, history.length - shown));

  // Asks that were made before this page was open (the resumed stream shows those of the latest run).
  // biome-ignore lint/correctness/useExhaustiveDependencies: refetch when a run starts or ends.
  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    api(`/api/permissions?session_id=${encodeURIComponent(sessionId)}`, parsePermissions).then(
      (list) => live && setPending(list),
      () => live && setPending([]),
    );
    return () => {
      live = false;
    };
  }, [sessionId, run?.status]);

  // Follow the stream while the user is at the bottom; leave them be once they scroll up.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after every content change.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [run, history]);

  const send = ({ message, model, agent, attachments, mcpPrompt }: ComposerValue) => {
    setSendError(undefined);
    if (running && sessionId) {
      pinned.current = true;
      runs.steer(sessionId, message).catch((err: unknown) => setSendError(err instanceof Error ? err.message : String(err)));
      return;
    }
    const body: ChatBody = { message };
    if (sessionId) body.session_id = sessionId;
    if (sessionId && continueFrom) body.from_entry_id = continueFrom.entryId;
    if (model) body.model = model;
    if (agent) body.agent = agent;
    if (attachments.length > 0) body.attachments = attachments.map((a) => ({ mcp_resource: a }));
    if (mcpPrompt) body.mcp_prompt = mcpPrompt;
    pinned.current = true;
    const key = runs.start(body, onSessionStarted);
    if (!sessionId) setHomeKey(key);
    onCancelContinue?.();
  };

  const abort = () => {
    if (run?.sessionId) runs.abort(run.sessionId).catch((err: unknown) => setSendError(String(err)));
  };

  const inRun = new Set(run ? Object.keys(run.permissions) : []);
  const earlierAsks = pending.filter((p) => !inRun.has(p.id));

  return (
    <div className="chat">
      <div
        className="chat-log"
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
        role="log"
        aria-label="Conversation"
      >
        {history.length > visible.length && (
          <button type="button" className="link" onClick={() => setShown(shown + SHOWN_BLOCKS)}>
            Show {Math.min(SHOWN_BLOCKS, history.length - visible.length)} earlier of {history.length - visible.length}
          </button>
        )}
        {visible.map((block) => (
          <HistoryBlockView key={block.entry.id} block={block} sessionId={sessionId} />
        ))}
        {!snapshot && !run && !sessionId && (
          <div className="empty">
            <h2>New session</h2>
            <p className="muted">Send a message to start a run. The session appears in the list once it begins.</p>
          </div>
        )}
        {run && <LiveRun run={run} />}
        {elicitations.map((e) => (
          <ElicitationCard
            key={e.id}
            ask={e}
            onAnswer={async (accept, content) => {
              await answerElicitation(e.id, accept, content);
              answeredElicitation(e.id);
            }}
          />
        ))}
        {earlierAsks.map((p) => {
          const ask: PermissionAsk = { id: p.id, permission: p.permission, patterns: p.patterns };
          if (p.tool) ask.tool = p.tool;
          return (
            <PermissionCard
              key={p.id}
              ask={ask}
              onReply={async (reply, scope) => {
                await runs.reply(p.session_id, ask, reply, scope);
                setPending((list) => list.filter((x) => x.id !== p.id));
              }}
            />
          );
        })}
      </div>
      <ErrorAlert error={sendError} />
      <Composer
        sessionModel={currentModel}
        running={running}
        steerable={sessionId !== undefined}
        onSend={send}
        onAbort={abort}
        continueFrom={continueFrom}
        onCancelContinue={onCancelContinue}
      />
    </div>
  );
}
