import { useCallback, useEffect, useState } from "react";
import * as z from "zod/mini";
import { api } from "../../api/client.js";
import { ErrorAlert } from "../common/ErrorAlert.js";

/** One "always" approval in force, as `GET /api/approvals` lists it. */
const ListedApproval = z.object({
  id: z.string(),
  agent: z.string(),
  permission: z.string(),
  pattern: z.string(),
  scope: z.enum(["session", "project", "global"]),
  wildcard: z.optional(z.boolean()),
});
type ListedApproval = z.infer<typeof ListedApproval>;
const ApprovalList = z.object({ approvals: z.array(ListedApproval) });

const SCOPE_LABELS: Record<ListedApproval["scope"], string> = {
  session: "this session",
  project: "this project",
  global: "everywhere",
};

/**
 * The "always" answers in force for a session (its own, its workspace's and the global ones), each
 * with a button that revokes it. Re-read when the session changes, since a run may add one.
 */
export function ApprovalsPanel({ sessionId, version }: { sessionId: string; version: unknown }) {
  const [approvals, setApprovals] = useState<readonly ListedApproval[]>([]);
  const [error, setError] = useState<string | undefined>();
  const query = `session_id=${encodeURIComponent(sessionId)}`;

  const load = useCallback(
    () =>
      api(`/api/approvals?${query}`, (v) => ApprovalList.parse(v)).then(
        (list) => {
          setApprovals(list.approvals);
          setError(undefined);
        },
        (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
      ),
    [query],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` changes when the session does; it is the reason to reload.
  useEffect(() => {
    void load();
  }, [load, version]);

  const revoke = async (approval: ListedApproval) => {
    try {
      await api(`/api/approvals/${encodeURIComponent(approval.id)}?${query}`, () => undefined, { method: "DELETE" });
      await load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  if (approvals.length === 0 && error === undefined) return null;
  return (
    <details className="approvals-panel" data-testid="approvals-panel">
      <summary>Approvals: {approvals.length}</summary>
      <ErrorAlert error={error} />
      <ul className="plain-list">
        {approvals.map((a) => (
          <li key={`${a.scope}:${a.id}`} className="approval">
            <code>{a.permission}</code> <code className="approval-pattern">{a.pattern}</code>{" "}
            <span className="muted">
              for {a.agent}, {SCOPE_LABELS[a.scope]}
            </span>{" "}
            <button
              type="button"
              aria-label={`Revoke ${a.permission} ${a.pattern} (${SCOPE_LABELS[a.scope]})`}
              onClick={() => void revoke(a)}
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}
