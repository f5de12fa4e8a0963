import { runs } from "../../lib/runs.js";
import { PermissionCard } from "./PermissionCard.js";
import { PlanCard } from "./PlanCard.js";
import type { RunState } from "./run-state.js";
import { ToolCallCard } from "./ToolCallCard.js";

/** The run streaming now: the prompt, then text, reasoning, tool calls and asks as they arrive. */
export function LiveRun({ run }: { run: RunState }) {
  const sessionId = run.sessionId;
  return (
    <div className="live-run" data-status={run.status} aria-live="polite" aria-busy={run.status === "running"}>
      {run.prompt && (
        <article className="msg msg-user" aria-label="User message">
          <p className="msg-text">{run.prompt}</p>
        </article>
      )}
      <article className="msg msg-assistant" aria-label="Assistant message (streaming)">
        {run.items.map((item, i) => {
          switch (item.kind) {
            case "text":
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: items only ever append, so the index is stable.
                <p key={i} className="msg-text live-text">
                  {item.text}
                </p>
              );
            case "reasoning":
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: items only ever append, so the index is stable.
                <details key={i} className="reasoning" open={i === run.items.length - 1 && run.status === "running"}>
                  <summary>Reasoning</summary>
                  <p className="msg-text live-reasoning">{item.text}</p>
                </details>
              );
            case "tool": {
              const call = run.tools[item.callId];
              return call ? <ToolCallCard key={item.callId} {...call} /> : null;
            }
            case "permission": {
              const ask = run.permissions[item.id];
              return ask && sessionId ? (
                <PermissionCard key={item.id} ask={ask} onReply={(reply, scope) => runs.reply(sessionId, ask, reply, scope)} />
              ) : null;
            }
            case "plan": {
              const plan = run.plans[item.planId];
              return plan && sessionId ? (
                <PlanCard
                  key={item.planId}
                  plan={plan}
                  onAnswer={(approved, reason) => runs.approvePlan(sessionId, plan, approved, reason)}
                />
              ) : null;
            }
          }
          return null;
        })}
        {run.status === "starting" && <p className="muted">Starting…</p>}
        {run.status === "running" && (
          <p className="muted working" role="status">
            <span className="spinner" aria-hidden="true" /> Working…
          </p>
        )}
        {run.error && (
          <p role="alert" className={run.status === "aborted" ? "muted" : "error"}>
            {run.status === "aborted" ? "Aborted." : run.error.message}
          </p>
        )}
      </article>
    </div>
  );
}
