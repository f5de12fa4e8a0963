import { ArborError, type RunEvent } from "@arbor/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Ask, questionText } from "../shared/asks.js";
import type { ChatTurn } from "../shared/run-input.js";
import { type RunEventWire, readStep, type StreamEnd, toWire } from "../shared/run-output.js";
import type { ProtocolRuntime, StartedRun } from "../shared/runs.js";
import type { ElicitAsks } from "./elicit-asks.js";

/** What a tool handler gets from the SDK that Arbor uses: cancellation and the progress channel. */
export interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }): Promise<void>;
}

/** One line for a progress report, or undefined for events a client need not hear about live. */
function progressLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case "tool_start":
      return `tool ${event.tool} started`;
    case "tool_progress":
      return `tool ${event.tool}: ${event.title ?? "working"}`;
    case "tool_end":
      return `tool ${event.tool} ${event.is_error ? "failed" : "done"}`;
    case "llm_start":
      return `model called (${event.model})`;
    case "llm_end":
      return `model answered (${event.model})`;
    default:
      return undefined;
  }
}

/**
 * The run's wire over MCP: progress lines, asks naming the tool that answers them. The call's
 * result (the answer's text) is the run's result, not an ending on this wire.
 */
export const mcpProgressWire: RunEventWire<string> = {
  event: (e) => {
    const line = progressLine(e.event);
    return line === undefined ? [] : [line];
  },
  ask: (ask: Ask) => [
    ask.kind === "question"
      ? `waiting for an answer to the question ${JSON.stringify(questionText(ask.event))}: answer_question id=${ask.id}`
      : ask.kind === "permission"
        ? `waiting for permission ${ask.event.permission} (${ask.event.patterns.join(", ")}): answer_permission id=${ask.id}`
        : `waiting for plan approval: answer_plan plan_id=${ask.planId}`,
  ],
  end: () => [],
};

/** What a run's last logged event says of it, wherever it ran: the tool's result. */
export function runResultOf(sessionId: string, last: RunEvent | undefined, end: StreamEnd | undefined): CallToolResult {
  if (last?.type === "done") {
    const summary = { session_id: sessionId, status: "done", text: last.text ?? "", steps: last.steps ?? 0 };
    return {
      content: [{ type: "text", text: summary.text !== "" ? summary.text : "Run done." }],
      structuredContent: summary,
    };
  }
  const error =
    last?.type === "error"
      ? { code: last.code ?? "run_failed", message: last.content }
      : { code: "run_unreadable", message: `The run's events could not be read to its end (${end?.kind ?? "no end"}).` };
  const status = error.code === "aborted" ? "aborted" : "error";
  return {
    isError: true,
    content: [{ type: "text", text: `Run ${status}: ${error.message}` }],
    structuredContent: { session_id: sessionId, status, text: "", steps: 0, error },
  };
}

/** Progress reports of one call: numbered from 1, each a line of `mcpProgressWire`; none without a token. */
export function progressReporter(
  extra: CallExtra,
): (events: readonly { event: RunEvent; id: number | undefined; json: string }[]) => Promise<void> {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return async (events) => {
    if (token === undefined) return;
    for (const e of events) {
      for (const message of toWire(mcpProgressWire, e)) {
        progress += 1;
        // A client that went away cannot be told; the run goes on to its end.
        await extra
          .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } })
          .catch(() => {});
      }
    }
  };
}

/** Reads a started run's events to its end, handing each step's to `onEvents`; the result is the run's. */
export async function followToEnd(
  started: StartedRun,
  onEvents: (events: readonly { event: RunEvent; id: number | undefined; json: string }[]) => Promise<void>,
): Promise<CallToolResult> {
  const { sessionId, reader } = started;
  let last: RunEvent | undefined;
  let end: StreamEnd | undefined;
  try {
    for (;;) {
      const step = await readStep(sessionId, reader);
      last = step.events.at(-1)?.event ?? last;
      await onEvents(step.events);
      if (step.end) {
        end = step.end;
        break;
      }
    }
  } finally {
    reader.close();
  }
  return runResultOf(sessionId, last, end);
}

/**
 * Runs a turn to its end as one tool call, reporting progress when asked for. The run starts the
 * way every door starts one (`begin`): here, or on a cluster recorded and queued for whichever
 * instance takes it, its events read from the session's log. `cancellable`: the call's abort
 * aborts the run wherever it is driven; a stateless server's calls are not (their abort is only
 * the server closing), so a client cancels those with tasks/cancel or the abort route. `elicit`:
 * the run's asks are also put to the client as elicitations (it declared the capability).
 */
export async function runToEnd(
  runs: ProtocolRuntime,
  turn: ChatTurn,
  extra: CallExtra,
  cancellable: boolean,
  elicit?: ElicitAsks,
): Promise<CallToolResult> {
  // Refused with session_busy, before any event, when another run drives the session.
  const begun = await runs.begin(turn, { steer: false });
  if ("steered" in begun) throw new ArborError("session_busy", `Session ${begun.steered.sessionId} has a run in progress.`);
  const { started } = begun;
  const onAbort = () => {
    void runs.abort(started.sessionId, new ArborError("aborted", "The MCP client cancelled the request.")).catch(() => {});
  };
  if (cancellable) extra.signal.addEventListener("abort", onAbort, { once: true });
  const report = progressReporter(extra);
  try {
    return await followToEnd(started, async (events) => {
      elicit?.see(events);
      await report(events);
    });
  } finally {
    extra.signal.removeEventListener("abort", onAbort);
    await elicit?.close();
  }
}
