import type { Principal } from "@arbor/core/store";
import type { ServerContext } from "../../context.js";
import type { AskRef } from "../shared/asks.js";
import type { LocalRun, ProtocolRuntime } from "../shared/runs.js";
import { ParamError } from "./openai-errors.js";
import type { RequestInput } from "./request-input.js";
import type { Pause, PausedResponses } from "./responder.js";
import type { ResponseRef } from "./response-ids.js";

/*
 * A request that answers what a previous response paused on (function output, approvals). Checked
 * whole before anything is answered, so a wrong answer changes nothing; apart from routes.ts so the
 * route reads as the request's two cases.
 */

/**
 * What a response paused on, as the store keeps it: the session's calls of client functions waiting
 * for output and its asks waiting for an approval. Read when this server did not make the pause (it
 * was another instance, or this one before a restart); the answer's response reads on from the end of
 * the session's log, since nothing of the paused step happens before the client answers.
 */
async function storedPause(ctx: ServerContext, ref: ResponseRef): Promise<Pause | undefined> {
  const { runtime, store } = ctx;
  const [calls, pending] = await Promise.all([
    runtime.asks.listFunctionCalls(ref.sessionId),
    runtime.asks.listPending(ref.sessionId),
  ]);
  const asks = pending.flatMap((a): AskRef[] =>
    a.kind === "permission"
      ? [{ kind: "permission", id: a.id }]
      : a.kind === "plan"
        ? [{ kind: "plan", planId: a.plan.planId }]
        : [],
  );
  if (calls.length === 0 && asks.length === 0) return undefined;
  return {
    ref,
    after: await store.lastEventId(ref.sessionId),
    calls: calls.map((c) => c.callId),
    asks,
    clientTools: [...new Set(calls.flatMap((c) => c.functions.map((f) => f.name)))],
  };
}

/** The pause `prevId` names, once the request answers each of its calls and asks exactly once. */
export async function pauseAnswered(
  ctx: ServerContext,
  prev: { id: string; ref: ResponseRef } | undefined,
  input: RequestInput,
  paused: PausedResponses,
): Promise<{ prevId: string; pause: Pause }> {
  if (prev === undefined) {
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
  const pause = paused.get(prev.id) ?? (await storedPause(ctx, prev.ref));
  if (!pause) {
    throw new ParamError(
      "invalid_input",
      `Response ${prev.id} does not wait for function output or an approval (it finished, or was answered).`,
      "previous_response_id",
    );
  }
  const answered = new Set([...input.outputs.map((o) => o.callId), ...input.approvals.map((a) => JSON.stringify(a.ask))]);
  const expected = [...pause.calls, ...pause.asks.map((a) => JSON.stringify(a))];
  const missing = expected.filter((k) => !answered.has(k));
  if (missing.length > 0 || answered.size !== expected.length) {
    throw new ParamError(
      "invalid_input",
      `Response ${prev.id} waits for output of calls [${pause.calls.join(", ")}] and ${pause.asks.length} approval(s); answer each exactly once.`,
      "input",
    );
  }
  const waiting = new Set((await ctx.runtime.asks.listFunctionCalls(pause.ref.sessionId)).map((c) => c.callId));
  for (const { callId } of input.outputs) {
    if (!waiting.has(callId)) {
      throw new ParamError("invalid_input", `No run waits for the output of call ${callId} any more.`, "input");
    }
  }
  return { prevId: prev.id, pause };
}

/**
 * Hands the checked answers to the waiting run: function output recorded on its calls' asks,
 * approvals through the runtime. The run that took the session up, when the one that paused was gone.
 */
export async function answerPause(
  answered: { prevId: string; pause: Pause },
  input: RequestInput,
  paused: PausedResponses,
  runs: ProtocolRuntime,
  principal?: Principal,
): Promise<LocalRun | undefined> {
  const sessionId = answered.pause.ref.sessionId;
  paused.delete(answered.prevId);
  const takenUp = input.outputs.length > 0 ? await runs.answerFunctions(sessionId, input.outputs, principal) : undefined;
  for (const { ask, approve, reason } of input.approvals) {
    if (ask.kind === "question") continue; // never sent as an approval (see ResponseWire.ask)
    await runs.answer(
      ask.kind === "permission"
        ? { kind: "permission", id: ask.id, reply: approve ? "once" : "reject", ...(reason ? { message: reason } : {}) }
        : { kind: "plan", planId: ask.planId, approved: approve, ...(reason ? { reason } : {}) },
    );
  }
  return takenUp;
}
