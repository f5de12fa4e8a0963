import { lazy, Suspense, useEffect, useState } from "react";
import { navigate, onLinkClick, sessionPath, TABS, type Tab } from "../../lib/router.js";
import { runs, useRun } from "../../lib/runs.js";
import { useSnapshot } from "../../lib/use-snapshot.js";
import { ChatView } from "../chat/ChatView.js";
import { isActive } from "../chat/run-state.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { CompareView } from "../compare/CompareView.js";
import { DebugPanel } from "../debug/DebugPanel.js";
import { StepTrace } from "../steps/StepTrace.js";
import { TimelineView } from "../timeline/TimelineView.js";
import { TreeView } from "../tree/TreeView.js";
import { ApprovalsPanel } from "./ApprovalsPanel.js";
import { liveTitle } from "./live-title.js";
import { SessionOrigin } from "./SessionOrigin.js";
import { SessionTotalsBar } from "./SessionTotalsBar.js";
import { TodoPanel } from "./TodoPanel.js";

// The DAG pulls in React Flow and ELK (~1.5 MB); load it only when the tab opens.
const DagView = lazy(() => import("../dag/DagView.js").then((m) => ({ default: m.DagView })));

const TAB_LABELS: Record<Tab, string> = {
  chat: "Chat",
  tree: "Tree",
  dag: "Goals",
  timeline: "Timeline",
  compare: "Compare",
  steps: "Steps",
  debug: "Debug",
};

export interface ContinueFrom {
  entryId: string;
  description: string;
}

export function SessionPage({ sessionId, tab, onChanged }: { sessionId: string; tab: Tab; onChanged: () => void }) {
  const { snapshot, error, notFound, reload } = useSnapshot(sessionId);
  const [continueFrom, setContinueFrom] = useState<ContinueFrom | undefined>();
  const found = snapshot !== undefined;

  // A run in progress (started elsewhere, or before a reload) streams here too; only for a session that exists.
  useEffect(() => {
    if (found) runs.attach(sessionId);
  }, [sessionId, found]);

  // While a run goes, each step it has written (a model call ended: its tools start, it asks, or the
  // next call begins) is read back, so the header's totals run with it instead of jumping in at the end.
  const run = useRun(sessionId);
  const active = isActive(run);
  const stepMark =
    run && active ? `${run.llmCalls.length}:${Object.keys(run.tools).length}:${Object.keys(run.permissions).length}` : "";
  // biome-ignore lint/correctness/useExhaustiveDependencies: the step mark is the trigger.
  useEffect(() => {
    if (found && stepMark !== "") void reload();
  }, [stepMark]);

  if (notFound) return <NotFound sessionId={sessionId} />;

  const title = liveTitle(sessionId, snapshot, run?.prompt);
  return (
    <section className="session-page" aria-labelledby="session-title">
      <header className="session-head">
        <h1 id="session-title" title={sessionId}>
          {title}
        </h1>
        {snapshot && <SessionOrigin meta={snapshot.session} />}
        {snapshot && <SessionTotalsBar snapshot={snapshot} running={active} />}
        {snapshot && <TodoPanel snapshot={snapshot} />}
        {snapshot && <ApprovalsPanel sessionId={sessionId} version={snapshot} />}
        <nav aria-label="Session views" className="tabs">
          {TABS.map((t) => {
            const path = sessionPath(sessionId, t);
            return (
              <a key={t} href={path} aria-current={t === tab ? "page" : undefined} onClick={(e) => onLinkClick(e, path)}>
                {TAB_LABELS[t]}
              </a>
            );
          })}
        </nav>
      </header>
      <ErrorAlert error={error} />
      <div className="session-body">
        {tab === "chat" && (
          <ChatView
            sessionId={sessionId}
            snapshot={snapshot}
            continueFrom={continueFrom}
            onCancelContinue={() => setContinueFrom(undefined)}
          />
        )}
        {tab === "tree" && snapshot && (
          <TreeView
            snapshot={snapshot}
            reload={reload}
            onContinue={(from) => {
              setContinueFrom(from);
              navigate(sessionPath(sessionId, "chat"));
            }}
            onForked={(id) => {
              onChanged();
              navigate(sessionPath(id, "tree"));
            }}
          />
        )}
        {tab === "dag" && (
          <Suspense fallback={<p className="muted">Loading the goal view…</p>}>
            <DagView traceId={sessionId} />
          </Suspense>
        )}
        {tab === "timeline" && <TimelineView sessionId={sessionId} snapshot={snapshot} />}
        {tab === "compare" && snapshot && <CompareView snapshot={snapshot} reload={reload} />}
        {tab === "steps" && <StepTrace sessionId={sessionId} snapshot={snapshot} />}
        {tab === "debug" && <DebugPanel sessionId={sessionId} />}
        {!snapshot && !error && tab === "tree" && <p className="muted">Loading…</p>}
      </div>
    </section>
  );
}

/** An unknown session id: say so, and offer the way home; no tabs, composer or socket for something that is not there. */
function NotFound({ sessionId }: { sessionId: string }) {
  return (
    <section className="not-found" aria-labelledby="not-found-title" data-testid="not-found">
      <h1 id="not-found-title">Session not found</h1>
      <p>
        There is no session <code>{sessionId}</code> on this server. It may have been deleted, or the link is mistyped.
      </p>
      <p>
        <a href="/" onClick={(e) => onLinkClick(e, "/")}>
          Start a new session
        </a>{" "}
        or pick one from the list.
      </p>
    </section>
  );
}
