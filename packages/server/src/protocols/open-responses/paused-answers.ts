import type { ProtocolRuntime } from "../shared/runs.js";
import type { ClientCalls } from "./client-tools.js";
import { ParamError } from "./openai-errors.js";
import type { RequestInput } from "./request-input.js";
import type { Pause, PausedResponses } from "./responder.js";

/*
 * A request that answers what a previous response paused on (function output, approvals). Checked
 * whole before anything is answered, so a wrong answer changes nothing; apart from routes.ts so the
 * route reads as the request's two cases.
 */

/** The pause `prevId` names, once the request answers each of its calls and asks exactly once. */
export function pauseAnswered(
  prevId: string | undefined,
  input: RequestInput,
  paused: PausedResponses,
  calls: ClientCalls,
): { prevId: string; pause: Pause } {
  if (prevId === undefined) {
    throw new ParamError(
      "invalid_input",
      "function_call_output and mcp_approval_response items answer a response: name it in previous_response_id.",
      "previous_response_id",
    );
  }
  if (input.prompt !== undefined) {
    throw new ParamError(
      "invalid_input",
      "Send the answers to the previous response alone; a new message goes in the request after.",
      "input",
    );
  }
  const pause = paused.get(prevId);
  if (!pause) {
    throw new ParamError(
      "invalid_input",
      `Response ${prevId} does not wait for function output or an approval here (it finished, was answered, or this server restarted since).`,
      "previous_response_id",
    );
  }
  const sessionId = pause.ref.sessionId;
  const answered = new Set([...input.outputs.map((o) => o.callId), ...input.approvals.map((a) => JSON.stringify(a.ask))]);
  const expected = [...pause.calls, ...pause.asks.map((a) => JSON.stringify(a))];
  const missing = expected.filter((k) => !answered.has(k));
  if (missing.length > 0 || answered.size !== expected.length) {
    throw new ParamError(
      "invalid_input",
      `Response ${prevId} waits for output of calls [${pause.calls.join(", ")}] and ${pause.asks.length} approval(s); answer each exactly once.`,
      "input",
    );
  }
  for (const { callId } of input.outputs) {
    if (!calls.isWaiting(sessionId, callId)) {
      throw new ParamError("invalid_input", `No run waits for the output of call ${callId} any more.`, "input");
    }
  }
  return { prevId, pause };
}

/** Hands the checked answers to the waiting run: function output to its client tools, approvals through the runtime. */
export async function answerPause(
  answered: { prevId: string; pause: Pause },
  input: RequestInput,
  paused: PausedResponses,
  calls: ClientCalls,
  runs: ProtocolRuntime,
): Promise<void> {
  const sessionId = answered.pause.ref.sessionId;
  paused.delete(answered.prevId);
  for (const { callId, output } of input.outputs) calls.answer(sessionId, callId, output);
  for (const { ask, approve, reason } of input.approvals) {
    if (ask.kind === "question") continue; // never sent as an approval (see ResponseWire.ask)
    await runs.answer(
      ask.kind === "permission"
        ? { kind: "permission", id: ask.id, reply: approve ? "once" : "reject", ...(reason ? { message: reason } : {}) }
        : { kind: "plan", planId: ask.planId, approved: approve, ...(reason ? { reason } : {}) },
    );
  }
}
