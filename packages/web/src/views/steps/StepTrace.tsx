import type { Snapshot } from "@arbor/core";
import { memo, useCallback, useEffect, useId, useMemo, useState } from "react";
import { api } from "../../api/client.js";
import {
  type FoundToolCall,
  parseFoundToolCalls,
  parseMessagePage,
  parseToolStats,
  type ToolStats,
  type TraceMessage,
  type TraceStep,
  type TraceToolCall,
} from "../../api/wire.js";
import { formatCost, formatDuration, formatTime, formatTokens, truncate } from "../../lib/format.js";
import { type EntryUsage, usageOf } from "../../lib/session-stats.js";
import { steeringText } from "../../lib/steering.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { RefreshBar } from "../common/RefreshBar.js";
import { RichText } from "../common/RichText.js";
import { TableHead } from "../common/TableHead.js";
import { ContextChart } from "./ContextChart.js";

const PAGE = 20;

/** The trace's RFC 3339 nanosecond times, cut to the millisecond a Date understands. */
export function traceTime(t: string): string {
  return formatTime(t.replace(/(\.\d{3})\d*Z$/, "$1Z"));
}

function argsText(args: unknown): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args, null, 2) ?? "";
}

type CallStatus = "ok" | "failed" | "pending";
const statusOf = (call: TraceToolCall): CallStatus => (call.result === null ? "pending" : call.result.success ? "ok" : "failed");
const STATUS_LABEL: Record<CallStatus, string> = { ok: "ok", failed: "failed", pending: "no result" };
const STATUS_CLASS: Record<CallStatus, string> = { ok: "done", failed: "error", pending: "running" };

/**
 * The step trace: each assistant answer with its steps (one per model call): the thought,
 * then every tool call with its arguments, result or error, and duration. Above it, per-tool stats;
 * a switch lists only the failed calls of the session's active path.
 */
export function StepTrace({ sessionId, snapshot }: { sessionId: string; snapshot: Snapshot | undefined }) {
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const [messages, setMessages] = useState<TraceMessage[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [stats, setStats] = useState<ToolStats[] | undefined>();
  const [failedOnly, setFailedOnly] = useState(false);
  const [failed, setFailed] = useState<FoundToolCall[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loadingOlder, setLoadingOlder] = useState(false);
  const failedId = useId();
  const fail = useCallback((err: unknown) => setError(err instanceof Error ? err.message : String(err)), []);

  const load = useCallback(() => {
    setError(undefined);
    api(`${base}/messages?limit=${PAGE}`, parseMessagePage).then((page) => {
      setMessages(page.messages);
      setCursor(page.next_cursor);
    }, fail);
    api(`${base}/tool-stats`, parseToolStats).then(setStats, fail);
  }, [base, fail]);

  // Reload when the session changes on disk (a run finished, an entry was added).
  const version = snapshot ? `${snapshot.session.updatedAt}:${snapshot.entries.length}` : "";
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger.
  useEffect(load, [load, version]);

  useEffect(() => {
    if (!failedOnly) return;
    api(`${base}/tool-calls?failed=true`, parseFoundToolCalls).then(setFailed, fail);
  }, [base, failedOnly, fail]);

  const loadOlder = () => {
    if (!cursor) return;
    setLoadingOlder(true);
    api(`${base}/messages?limit=${PAGE}&before=${encodeURIComponent(cursor)}`, parseMessagePage)
      .then((page) => {
        setMessages((prev) => [...(prev ?? []), ...page.messages]);
        setCursor(page.next_cursor);
      }, fail)
      .finally(() => setLoadingOlder(false));
  };

  const questions = new Map<string, string>();
  // A steering message joins the run's answer; the question stays the prompt that started it.
  for (const m of messages ?? [])
    if (m.role === "user" && steeringText(m.content) === undefined) questions.set(m.request_id, m.content);
  const answers = (messages ?? []).filter((m) => m.role === "assistant");
  // Kept across renders: a 30,000-entry session's index costs milliseconds to build, and a stable
  // lookup lets the answers already shown skip rendering again when older ones are loaded.
  const byId = useMemo(() => new Map(snapshot?.entries.map((e) => [e.id, e])), [snapshot]);
  const usage = useCallback(
    (entryId: string | undefined) => (entryId === undefined ? undefined : usageOf(byId.get(entryId))),
    [byId],
  );

  return (
    <div className="panel-scroll steps-view" data-testid="step-trace">
      <RefreshBar onRefresh={load} className="steps-toolbar">
        <label htmlFor={failedId} className="checkbox">
          <input id={failedId} type="checkbox" checked={failedOnly} onChange={(e) => setFailedOnly(e.target.checked)} /> Only
          failed tool calls
        </label>
      </RefreshBar>
      <ErrorAlert error={error} />

      {snapshot && <ContextChart snapshot={snapshot} />}

      <section aria-labelledby={`${failedId}-stats`} className="tool-stats">
        <h2 id={`${failedId}-stats`}>Per-tool stats</h2>
        {stats === undefined ? (
          <p className="muted">Loading…</p>
        ) : stats.length === 0 ? (
          <p className="muted">No tool calls with a result yet.</p>
        ) : (
          <table className="data" aria-label="Per-tool stats">
            <TableHead
              columns={[
                "Tool",
                { label: "Calls", num: true },
                { label: "Failures", num: true },
                { label: "p50", num: true },
                { label: "p95", num: true },
                { label: "Max", num: true },
                { label: "Total", num: true },
              ]}
            />
            <tbody>
              {stats.map((s) => (
                <tr key={s.name} data-tool={s.name}>
                  <th scope="row">{s.name}</th>
                  <td className="num">{s.count}</td>
                  <td className="num" data-testid="failures">
                    {s.failures}
                  </td>
                  <td className="num">{formatDuration(s.p50_ms)}</td>
                  <td className="num">{formatDuration(s.p95_ms)}</td>
                  <td className="num">{formatDuration(s.max_ms)}</td>
                  <td className="num">{formatDuration(s.total_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {failedOnly ? (
        <section aria-label="Failed tool calls" className="failed-calls">
          <h2>Failed tool calls</h2>
          {failed === undefined ? (
            <p className="muted">Loading…</p>
          ) : failed.length === 0 ? (
            <p className="muted">No failed tool calls on the active path.</p>
          ) : (
            <ol className="plain-list">
              {failed.map((f) => (
                <li key={`${f.message_id}:${f.tool_call.id}`}>
                  <p className="muted">
                    Step {f.iteration + 1} of answer to “{truncate(questions.get(f.request_id) ?? f.request_id, 80)}” ·{" "}
                    {traceTime(f.timestamp)}
                  </p>
                  <ToolCallView call={f.tool_call} />
                </li>
              ))}
            </ol>
          )}
        </section>
      ) : (
        <section aria-label="Answers" className="answers">
          <h2>Answers</h2>
          {messages === undefined ? (
            <p className="muted">Loading…</p>
          ) : answers.length === 0 ? (
            <p className="muted">No assistant answers in this session yet.</p>
          ) : (
            answers.map((m, i) => (
              <AnswerView key={m.id} message={m} question={questions.get(m.request_id)} open={i === 0} usage={usage} />
            ))
          )}
          {cursor && (
            <button type="button" className="load-more" onClick={loadOlder} disabled={loadingOlder}>
              {loadingOlder ? "Loading…" : "Load older messages"}
            </button>
          )}
        </section>
      )}
    </div>
  );
}

type UsageLookup = (entryId: string | undefined) => EntryUsage | undefined;

const AnswerView = memo(function AnswerView({
  message,
  question,
  open,
  usage,
}: {
  message: TraceMessage;
  question: string | undefined;
  open: boolean;
  usage: UsageLookup;
}) {
  const calls = message.agent_steps.reduce((n, s) => n + s.tool_calls.length, 0);
  const failures = message.agent_steps.reduce(
    (n, s) => n + s.tool_calls.filter((c) => c.result !== null && !c.result.success).length,
    0,
  );
  const title = question === undefined ? `Answer ${message.id}` : `Answer to “${truncate(question, 80)}”`;
  return (
    <details className="message-trace" open={open} aria-label={title} data-message-id={message.id}>
      <summary>
        <strong>{title}</strong>{" "}
        <span className="muted">
          · {message.agent_steps.length} step{message.agent_steps.length === 1 ? "" : "s"} · {calls} tool call
          {calls === 1 ? "" : "s"}
          {failures > 0 && ` · ${failures} failed`} · {traceTime(message.created_at)}
        </span>
        {!message.is_completed && <span className="badge status-running">incomplete</span>}
      </summary>
      <ol className="plain-list steps">
        {message.agent_steps.map((step) => (
          <li key={step.iteration}>
            <StepView step={step} usage={usage(step.entry_id)} />
          </li>
        ))}
      </ol>
      {message.content && (
        <div className="final-answer">
          <h4>Final answer</h4>
          <RichText text={message.content} />
        </div>
      )}
      <KnowledgeReferences references={message.knowledge_references ?? []} />
    </details>
  );
});

/** The knowledge-base passages the answer's searches returned: file, place and the start of the passage. */
function KnowledgeReferences({ references }: { references: readonly unknown[] }) {
  const shown = references.flatMap((r) => {
    if (typeof r !== "object" || r === null || typeof (r as { source?: unknown }).source !== "string") return [];
    const { source, location, excerpt } = r as { source: string; location?: unknown; excerpt?: unknown };
    return [
      { source, location: typeof location === "string" ? location : "", excerpt: typeof excerpt === "string" ? excerpt : "" },
    ];
  });
  // Two searches of one answer may return the same passage: it is listed once.
  const unique = [...new Map(shown.map((ref) => [`${ref.source}:${ref.location}`, ref])).entries()];
  if (unique.length === 0) return null;
  return (
    <section className="knowledge-references" aria-label="Knowledge references">
      <h4>Knowledge references</h4>
      <ol className="plain-list">
        {unique.map(([key, ref]) => (
          <li key={key}>
            <code>{ref.source}</code> {ref.location && <span className="muted">· {ref.location}</span>}
            {ref.excerpt && <p className="muted">{truncate(ref.excerpt, 200)}</p>}
          </li>
        ))}
      </ol>
    </section>
  );
}

function usageText(u: EntryUsage): string {
  const parts = [`${formatTokens(u.input)} in`];
  if (u.cached) parts.push(`${formatTokens(u.cached)} cached`);
  parts.push(`${formatTokens(u.output)} out`);
  if (u.reasoning) parts.push(`${formatTokens(u.reasoning)} reasoning`);
  parts.push(u.cost === undefined ? "price unknown" : formatCost(u.cost) || "$0");
  return parts.join(" · ");
}

function StepView({ step, usage }: { step: TraceStep; usage: EntryUsage | undefined }) {
  return (
    <section className="step" aria-label={`Step ${step.iteration + 1}`}>
      <h4>
        Step {step.iteration + 1} <span className="muted">· {traceTime(step.timestamp)}</span>
        {usage && (
          <span className="step-usage muted" data-testid="step-usage">
            {" "}
            · {usageText(usage)}
          </span>
        )}
      </h4>
      {step.thought ? (
        <p className="step-thought">
          <span className="muted">Thought: </span>
          {step.thought}
        </p>
      ) : (
        <p className="muted">No thought recorded.</p>
      )}
      {step.tool_calls.map((call) => (
        <ToolCallView key={call.id} call={call} />
      ))}
    </section>
  );
}

function ToolCallView({ call }: { call: TraceToolCall }) {
  const status = statusOf(call);
  return (
    <section className={`tool-call status-${STATUS_CLASS[status]}`} aria-label={`Tool call ${call.name}`} data-call-id={call.id}>
      <header className="tool-call-head">
        <span className="tool-name">{call.name}</span>
        <span className={`badge status-${STATUS_CLASS[status]}`} data-testid="tool-status">
          {STATUS_LABEL[status]}
        </span>
        {call.result !== null && (
          <span className="muted tool-duration" data-testid="tool-duration">
            {formatDuration(call.duration)}
          </span>
        )}
      </header>
      <h5>Arguments</h5>
      <pre className="tool-args">{argsText(call.args)}</pre>
      {call.result !== null &&
        (call.result.success ? (
          <>
            <h5>Result</h5>
            <pre className="tool-output">{call.result.output}</pre>
          </>
        ) : (
          <>
            <h5>Error</h5>
            <pre className="tool-output tool-error">{call.result.error ?? call.result.output}</pre>
          </>
        ))}
      {call.reflection && <p className="muted">Reflection: {call.reflection}</p>}
    </section>
  );
}
