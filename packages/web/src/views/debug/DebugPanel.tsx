import { Fragment, useCallback, useEffect, useState } from "react";
import { api } from "../../api/client.js";
import { type DebugRecord, parseDebugPage } from "../../api/wire.js";
import { formatDuration, formatTime, formatTokens, prettyJson } from "../../lib/format.js";
import { toggled } from "../../lib/toggle-set.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { RefreshBar } from "../common/RefreshBar.js";
import { TableHead } from "../common/TableHead.js";

const PAGE = 200;

const LEVEL_NOTE: Record<string, string> = {
  basic: "basic: tool timing only",
  standard: "standard: input cut to 2,000 and output to 1,000 characters",
  full: "full: whole inputs and outputs",
};

/**
 * DebugMiddleware's records of a session (`GET /api/sessions/:id/debug`): its LLM calls with model,
 * tokens and duration, each opening onto its input and output (whole at the `full` level), then its
 * tool calls. Records exist only for runs started with `debug`.
 */
export function DebugPanel({ sessionId }: { sessionId: string }) {
  const base = `/api/sessions/${encodeURIComponent(sessionId)}/debug`;
  const [records, setRecords] = useState<DebugRecord[] | undefined>();
  const [next, setNext] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  const fail = useCallback((err: unknown) => setError(err instanceof Error ? err.message : String(err)), []);

  const load = useCallback(() => {
    setError(undefined);
    api(`${base}?limit=${PAGE}`, parseDebugPage).then((page) => {
      setRecords(page.records);
      setNext(page.next_after);
    }, fail);
  }, [base, fail]);
  useEffect(load, [load]);

  const loadMore = () => {
    if (next === undefined) return;
    api(`${base}?limit=${PAGE}&after=${next}`, parseDebugPage).then((page) => {
      setRecords((prev) => [...(prev ?? []), ...page.records]);
      setNext(page.next_after);
    }, fail);
  };

  const toggle = (id: number) => setOpen((prev) => toggled(prev, id));

  const llm = (records ?? []).filter((r) => r.kind === "llm");
  const tools = (records ?? []).filter((r) => r.kind === "tool");
  const totalTokens = llm.reduce((n, r) => n + (r.total_tokens ?? (r.input_tokens ?? 0) + (r.output_tokens ?? 0)), 0);
  const totalMs = llm.reduce((n, r) => n + (r.duration_ms ?? 0), 0);
  const levels = [...new Set((records ?? []).map((r) => r.level))];

  return (
    <div className="panel-scroll debug-view" data-testid="debug-panel">
      <RefreshBar onRefresh={load}>
        {levels.length > 0 && (
          <span className="muted" data-testid="debug-levels">
            Level: {levels.map((l) => LEVEL_NOTE[l] ?? l).join("; ")}
          </span>
        )}
      </RefreshBar>
      <ErrorAlert error={error} />
      {records === undefined ? (
        <p className="muted">Loading…</p>
      ) : records.length === 0 ? (
        <p className="muted">
          No debug records: they are kept for runs started with a debug level (the composer's Debug picker,{" "}
          <code>arbor run --debug full</code>, or <code>debug</code> in <code>POST /api/chat</code>).
        </p>
      ) : (
        <>
          <section aria-labelledby="debug-llm-title">
            <h2 id="debug-llm-title">LLM calls</h2>
            <p className="muted" data-testid="llm-totals">
              {llm.length} call{llm.length === 1 ? "" : "s"} · {formatTokens(totalTokens)} tokens · {formatDuration(totalMs)}
            </p>
            {llm.length === 0 ? (
              <p className="muted">None recorded (the basic level records tool calls only).</p>
            ) : (
              <div className="table-scroll">
                <table className="data" aria-label="LLM calls">
                  <TableHead
                    columns={[
                      "Started",
                      "Agent",
                      "Model",
                      { label: "Input", num: true },
                      { label: "Output", num: true },
                      { label: "Total", num: true },
                      { label: "Duration", num: true },
                      "Finish",
                      "Details",
                    ]}
                  />
                  <tbody>
                    {llm.map((r) => {
                      const isOpen = open.has(r.event_id);
                      const detailId = `debug-detail-${r.event_id}`;
                      return (
                        <Fragment key={r.event_id}>
                          <tr data-event-id={r.event_id} className="llm-row">
                            <td>{formatTime(r.started_at)}</td>
                            <td>{r.node}</td>
                            <td data-testid="model">{r.model}</td>
                            <td className="num" data-testid="input-tokens">
                              {formatTokens(r.input_tokens)}
                            </td>
                            <td className="num" data-testid="output-tokens">
                              {formatTokens(r.output_tokens)}
                            </td>
                            <td className="num">{formatTokens(r.total_tokens)}</td>
                            <td className="num" data-testid="duration">
                              {r.interrupted ? "interrupted" : formatDuration(r.duration_ms)}
                            </td>
                            <td>
                              {r.finish_reason}
                              {r.cached && <span className="badge">cached</span>}
                            </td>
                            <td>
                              <button
                                type="button"
                                aria-expanded={isOpen}
                                aria-controls={detailId}
                                onClick={() => toggle(r.event_id)}
                                aria-label={`${isOpen ? "Hide" : "Show"} input and output of call ${r.call_id}`}
                              >
                                {isOpen ? "Hide" : "Show"}
                              </button>
                            </td>
                          </tr>
                          {isOpen && (
                            <tr id={detailId} className="debug-detail">
                              <td colSpan={9}>
                                <RecordIo record={r} />
                              </td>
                            </tr>
                          )}
                        </Fragment>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section aria-labelledby="debug-tool-title">
            <h2 id="debug-tool-title">Tool calls</h2>
            {tools.length === 0 ? (
              <p className="muted">None recorded.</p>
            ) : (
              <div className="table-scroll">
                <table className="data" aria-label="Tool calls">
                  <TableHead columns={["Started", "Tool", "Status", { label: "Duration", num: true }, "Input and output"]} />
                  <tbody>
                    {tools.map((r) => (
                      <tr key={r.event_id} data-event-id={r.event_id} className="tool-row">
                        <td>{formatTime(r.started_at)}</td>
                        <td>{r.tool}</td>
                        <td>{r.interrupted ? "interrupted" : r.is_error ? "failed" : "ok"}</td>
                        <td className="num">{formatDuration(r.duration_ms)}</td>
                        <td>
                          {r.input === undefined && r.output === undefined ? (
                            <span className="muted">not recorded at this level</span>
                          ) : (
                            <details>
                              <summary>Show</summary>
                              <RecordIo record={r} />
                            </details>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          {next !== undefined && (
            <button type="button" className="load-more" onClick={loadMore}>
              Load more records
            </button>
          )}
        </>
      )}
    </div>
  );
}

function RecordIo({ record }: { record: DebugRecord }) {
  return (
    <div className="debug-io">
      <p className="muted">
        Call <code>{record.call_id}</code> · run <code>{record.run_id}</code> · level {record.level}
        {record.truncated && " · cut to the record's size"}
      </p>
      {record.settings && (
        <>
          <h4>Settings</h4>
          <pre data-testid="debug-settings">{JSON.stringify(record.settings, null, 2)}</pre>
        </>
      )}
      <RecordedJson title="Input" value={record.input} testId="debug-input" />
      <RecordedJson title="Output" value={record.output} testId="debug-output" />
    </div>
  );
}

/** One side of a recorded call, or a note that the record's level left it out. */
function RecordedJson({ title, value, testId }: { title: string; value: string | undefined; testId: string }) {
  return (
    <>
      <h4>{title}</h4>
      {value === undefined ? <p className="muted">Not recorded.</p> : <pre data-testid={testId}>{prettyJson(value)}</pre>}
    </>
  );
}
