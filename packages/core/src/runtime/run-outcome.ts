import { ArborError } from "../errors.js";
import type { RunResult } from "../loop/types.js";
import { type RunEventInput, runUsageOnWire } from "../model/run-events.js";

/*
 * The results a run ends with when the loop never ran, and the one event every run's stream ends
 * with. Kept apart from runtime.ts so the runtime's wiring reads as wiring (and stays under the size cap).
 */

const NO_USAGE = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 } as const;

/** A run aborted while it waited for its session's slot: it never started. */
export function abortedBeforeStart(sessionId: string): RunResult {
  return {
    sessionId,
    status: "aborted",
    text: "",
    steps: 0,
    usage: { ...NO_USAGE },
    cost: 0,
    error: { code: "aborted", message: "The run was aborted before it started." },
  };
}

/** A run that threw instead of ending: typed errors keep their code, anything else is an internal error. */
export function failedRun(sessionId: string, err: unknown): RunResult {
  const error =
    err instanceof ArborError ? { code: err.code, message: err.message } : { code: "internal_error", message: String(err) };
  return { sessionId, status: "error", text: "", steps: 0, usage: { ...NO_USAGE }, cost: 0, error };
}

/** The stream's last event: `done` with the totals, or `error` with the code the result carries. */
export function finalEvent(result: RunResult): RunEventInput {
  if (result.status !== "done") {
    return { type: "error", content: result.error?.message ?? result.status, code: result.error?.code ?? result.status };
  }
  return {
    type: "done",
    status: "done",
    text: result.text,
    steps: result.steps,
    usage: runUsageOnWire(result.usage),
    cost: result.cost,
    ...(result.costKnown === false ? { cost_known: false as const } : {}),
    ...(result.stopMessage ? { stop_reason: result.stopReason ?? "budget", message: result.stopMessage } : {}),
  };
}
