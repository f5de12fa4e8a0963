import { runs } from "../../lib/runs.js";
import { steeringMark } from "../../lib/steering.js";
import { RichText } from "../common/RichText.js";
import { PermissionCard } from "./PermissionCard.js";
import { PlanCard } from "./PlanCard.js";
import { QuestionCard } from "./QuestionCard.js";
import { isActive, type RunItem, type RunState } from "./run-state.js";
import { ToolCallCard } from "./ToolCallCard.js";

/** The run's items cut where the user steered it: the answer so far, the user's message, the answer after it. */
type Segment = { kind: "answer"; start: number; items: RunItem[] } | { kind: "steer"; id: string };

function segments(items: RunItem[]): Segment[] {
  const out: Segment[] = [];
  items.forEach((item, i) => {
    if (item.kind === "steer") out.push({ kind: "steer", id: item.id });
    else {
      const last = out[out.length - 1];
      if (last?.kind === "answer") last.items.push(item);
      else out.push({ kind: "answer", start: i, items: [item] });
    }
  });
  // The status line ("Working…", the error) goes under an answer: one after the last steer if need be.
  if (out[out.length - 1]?.kind !== "answer") out.push({ kind: "answer", start: items.length, items: [] });
  return out;
}

/** The run streaming now: the prompt, then text, reasoning, tool calls and asks as they arrive, and what the user steered with. */
export function LiveRun({ run }: { run: RunState }) {
  const parts = segments(run.items);
  return (
    <div className="live-run" data-status={run.status} aria-live="polite" aria-busy={run.status === "running"}>
      {run.prompt && (
        <article className="msg msg-user" aria-label="User message">
          <p className="msg-text">{run.prompt}</p>
        </article>
      )}
      {parts.map((part, p) => {
        if (part.kind === "steer") {
          const steer = run.steers[part.id];
          return steer ? (
            <article
              key={part.id}
              className="msg msg-user msg-steering"
              data-steer-status={steer.status}
              aria-label="User message (steering)"
            >
              <p className="msg-text">{steer.text}</p>
              <p className={steer.status === "failed" ? "steer-mark error" : "steer-mark"}>
                {steeringMark(steer.status)}
                {steer.error ? `: ${steer.error}` : ""}
              </p>
            </article>
          ) : null;
        }
        const last = p === parts.length - 1;
        return (
          <article key={`answer-${part.start}`} className="msg msg-assistant" aria-label="Assistant message (streaming)">
            {part.items.map((item, j) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: items only ever append, so the index is stable.
              <LiveItem key={part.start + j} run={run} item={item} index={part.start + j} />
            ))}
            {last && <RunStatusLine run={run} />}
          </article>
        );
      })}
    </div>
  );
}

function LiveItem({ run, item, index }: { run: RunState; item: RunItem; index: number }) {
  const sessionId = run.sessionId;
  switch (item.kind) {
    case "text":
      // The text still streaming shows as it comes (parsing Markdown on every token is wasted work);
      // once anything follows it (a tool call, an ask that may wait for minutes) or the run ends, it is final.
      return index === run.items.length - 1 && isActive(run) ? (
        <p className="msg-text live-text">{item.text}</p>
      ) : (
        <div className="live-text">
          <RichText text={item.text} />
        </div>
      );
    case "reasoning":
      return (
        <details className="reasoning" open={index === run.items.length - 1 && run.status === "running"}>
          <summary>Reasoning</summary>
          <p className="msg-text live-reasoning">{item.text}</p>
        </details>
      );
    case "tool": {
      const call = run.tools[item.callId];
      return call ? <ToolCallCard {...call} /> : null;
    }
    case "permission": {
      const ask = run.permissions[item.id];
      return ask && sessionId ? (
        <PermissionCard ask={ask} onReply={(reply, scope) => runs.reply(sessionId, ask, reply, scope)} />
      ) : null;
    }
    case "question": {
      const ask = run.questions[item.id];
      return ask && sessionId ? (
        <QuestionCard ask={ask} onAnswer={(answer) => runs.answerQuestion(sessionId, ask, answer)} />
      ) : null;
    }
    case "plan": {
      const plan = run.plans[item.planId];
      return plan && sessionId ? (
        <PlanCard plan={plan} onAnswer={(approved, reason) => runs.approvePlan(sessionId, plan, approved, reason)} />
      ) : null;
    }
    case "steer":
      return null;
  }
}

function RunStatusLine({ run }: { run: RunState }) {
  return (
    <>
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
    </>
  );
}
