import type { Snapshot } from "@arbor/core";
import { useMemo } from "react";
import { formatCost, formatTokens } from "../../lib/format.js";
import { sessionTotals } from "../../lib/session-stats.js";

/** The session's spend at a glance: tokens by kind and the cost, or why there is none. */
export function SessionTotalsBar({ snapshot }: { snapshot: Snapshot }) {
  const t = useMemo(() => sessionTotals(snapshot), [snapshot]);
  if (t.calls === 0) return null;
  const cost =
    t.unpriced > 0 && t.cost === 0
      ? "price unknown"
      : `${formatCost(t.cost) || "$0"}${t.unpriced > 0 ? ` + ${t.unpriced} call${t.unpriced === 1 ? "" : "s"} of unknown price` : ""}`;
  return (
    <dl className="totals" aria-label="Session totals" data-testid="session-totals">
      <div>
        <dt>Input</dt>
        <dd>{formatTokens(t.input)}</dd>
      </div>
      <div>
        <dt>Cached</dt>
        <dd>{formatTokens(t.cached)}</dd>
      </div>
      <div>
        <dt>Output</dt>
        <dd>{formatTokens(t.output)}</dd>
      </div>
      <div>
        <dt>Reasoning</dt>
        <dd>{formatTokens(t.reasoning)}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{cost}</dd>
      </div>
      <div>
        <dt>Calls</dt>
        <dd>{t.calls}</dd>
      </div>
    </dl>
  );
}
