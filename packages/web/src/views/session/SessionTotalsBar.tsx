import type { SessionMeta, Snapshot } from "@arbor/core";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { api } from "../../api/client.js";
import { parseSessionPage } from "../../api/wire.js";
import { formatCost, formatTokens } from "../../lib/format.js";
import { sessionTotals } from "../../lib/session-stats.js";

/** What the session's sub-agents (explore branches, delegates, plan steps) spent, from their sessions' running totals. */
interface SubAgentSpend {
  runs: number;
  tokens: number;
  cost: number;
}

/**
 * Sub-agents run in sessions of their own, so their spending is not in this snapshot; their
 * sessions' totals are. Read again whenever this session changes (a run that just ended).
 */
function useSubAgentSpend(snapshot: Snapshot): SubAgentSpend | undefined {
  const [spend, setSpend] = useState<SubAgentSpend | undefined>();
  const id = snapshot.session.id;
  const version = snapshot.session.updatedAt;
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger.
  useEffect(() => {
    let live = true;
    api(`/api/sessions?parent_id=${encodeURIComponent(id)}&limit=1000`, parseSessionPage).then(
      (page) => {
        if (!live) return;
        const subs = page.sessions as Array<SessionMeta & { totalTokens?: number; totalCost?: number }>;
        setSpend({
          runs: subs.length,
          tokens: subs.reduce((n, s) => n + (s.totalTokens ?? 0), 0),
          cost: subs.reduce((n, s) => n + (s.totalCost ?? 0), 0),
        });
      },
      () => live && setSpend(undefined),
    );
    return () => {
      live = false;
    };
  }, [id, version]);
  return spend;
}

/** The session's spend at a glance: tokens by kind and the cost, or why there is none; then its sub-agents'. */
export function SessionTotalsBar({ snapshot, running = false }: { snapshot: Snapshot; running?: boolean }) {
  const t = useMemo(() => sessionTotals(snapshot), [snapshot]);
  const subs = useSubAgentSpend(snapshot);
  // A run in progress shows its totals from the start (zeros until its first step is written), so the
  // bar is there before the run ends rather than pushing the tabs down when it does.
  if (t.calls === 0 && !subs?.runs && !running) return null;
  const cost =
    t.unpriced > 0 && t.cost === 0
      ? "price unknown"
      : `${formatCost(t.cost) || "$0"}${t.unpriced > 0 ? ` + ${t.unpriced} call${t.unpriced === 1 ? "" : "s"} of unknown price` : ""}`;
  return (
    <dl className="totals" aria-label="Session totals" data-testid="session-totals" data-running={running}>
      <Total label="Input">{formatTokens(t.input)}</Total>
      <Total label="Cached">{formatTokens(t.cached)}</Total>
      <Total label="Output">{formatTokens(t.output)}</Total>
      <Total label="Reasoning">{formatTokens(t.reasoning)}</Total>
      <Total label="Cost">{cost}</Total>
      <Total label="Steps">
        {t.steps}
        {t.calls > t.steps ? ` + ${t.calls - t.steps} compaction${t.calls - t.steps === 1 ? "" : "s"}` : ""}
      </Total>
      {subs && subs.runs > 0 && (
        <div data-testid="sub-agent-totals">
          <dt>Sub-agents</dt>
          <dd>
            {formatTokens(subs.tokens) || "0"} tokens in {subs.runs} run{subs.runs === 1 ? "" : "s"}
            {subs.cost > 0 ? ` · ${formatCost(subs.cost)}` : ""}
          </dd>
        </div>
      )}
    </dl>
  );
}

/** One figure of the bar: its name and its value. */
function Total({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
