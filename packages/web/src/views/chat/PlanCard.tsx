import { useId, useState } from "react";
import { useAction } from "../../lib/use-action.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import type { PlanAsk } from "./run-state.js";

interface Props {
  plan: PlanAsk;
  onAnswer: (approved: boolean, reason: string | undefined) => Promise<void>;
}

/** A plan waiting for approval, answered in place (`POST /api/plan/approve`), with an optional reason. */
export function PlanCard({ plan, onAnswer }: Props) {
  const { busy, error, run } = useAction();
  const [reason, setReason] = useState("");
  const reasonId = useId();
  const answer = (approved: boolean) => run(() => onAnswer(approved, reason.trim() || undefined));
  return (
    <section className="plan-ask" aria-label={`Plan ${plan.title}`} data-plan-id={plan.planId}>
      <strong>Plan awaiting approval: {plan.title}</strong>
      <ol>
        {plan.steps.map((s) => (
          <li key={String(s.id)}>{s.title}</li>
        ))}
      </ol>
      {plan.answer ? (
        <p className="muted" data-testid="plan-answer">
          {plan.answer.approved ? "Approved" : "Rejected"}
          {plan.answer.reason ? `: ${plan.answer.reason}` : ""}
        </p>
      ) : (
        <>
          <div className="field">
            <label htmlFor={reasonId}>Reason (optional)</label>
            <input id={reasonId} value={reason} onChange={(e) => setReason(e.target.value)} disabled={busy} />
          </div>
          <div className="button-row">
            <button type="button" className="primary" disabled={busy} onClick={() => void answer(true)}>
              Approve plan
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void answer(false)}>
              Reject plan
            </button>
          </div>
        </>
      )}
      <ErrorAlert error={error} />
    </section>
  );
}
