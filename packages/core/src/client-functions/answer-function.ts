import { ArborError } from "../errors.js";
import type { RunHandle } from "../loop/run-types.js";
import type { Entry } from "../model/entry.js";
import type { Store } from "../store/store.js";
import { type ClientFunction, type ClientFunctionAsks, pendingFunctionCallOf } from "./client-function-asks.js";

export interface AnswerFunctionDeps {
  store: Store;
  asks: ClientFunctionAsks;
  /** Whether a run (here or in another process) drives the session: it takes the output from the store. */
  busy(sessionId: string): Promise<boolean>;
  /**
   * Starts a run that takes the session up from `fromEntryId` (its leaf when undefined) and settles
   * the calls left open there, offering `functions` (the client's, kept with the calls) again: a call
   * of one waits on its ask, answered now, and the model reads the output.
   */
  takeUp(sessionId: string, fromEntryId: string | undefined, functions: ClientFunction[]): RunHandle;
}

/** What answering calls of client functions did: the run that carries on, when the run that made them was gone. */
export interface AnsweredFunction {
  askIds: string[];
  run?: RunHandle;
}

/**
 * Records the client's outputs for calls of its functions in one session, each exactly once, from
 * any process. The run waiting on them (here, or in another process over the store) goes on; when
 * that run is gone — its process died, or was stopped while the calls waited — one run here takes the
 * session up from the calls, so the outputs still reach the model. Throws `ask_not_found` (no such
 * call waits), `ask_already_answered`, `ask_expired`, or `invalid_input` when a call ended another way
 * since (it timed out), having changed nothing.
 */
export async function answerFunctionCalls(
  deps: AnswerFunctionDeps,
  sessionId: string,
  outputs: ReadonlyArray<{ callId: string; output: string }>,
  by?: string,
): Promise<AnsweredFunction> {
  const asks = [];
  for (const { callId, output } of outputs) {
    const ask = await deps.asks.find(sessionId, callId);
    if (!ask || ask.answer) {
      throw new ArborError("ask_not_found", `No call ${callId} of session ${sessionId} waits for the client's output.`);
    }
    asks.push({ id: ask.id, output, functions: pendingFunctionCallOf(ask).functions });
  }
  const driven = await deps.busy(sessionId);
  // Where a run with no driver goes on from, decided before any answer is recorded, so a call that ended otherwise changes nothing.
  const from = driven ? undefined : await takeUpPoint(deps.store, sessionId, new Set(outputs.map((o) => o.callId)));
  let waitedHere = false;
  for (const ask of asks) waitedHere = (await deps.asks.answer(ask.id, ask.output, by)).waitedHere || waitedHere;
  const askIds = asks.map((a) => a.id);
  if (waitedHere || driven || !from) return { askIds };
  return { askIds, run: deps.takeUp(sessionId, from.entryId, asks[0]?.functions ?? []) };
}

/**
 * Where a run takes the session up so the calls run again: its leaf when no call has a result yet
 * (its process died), or just before the first result a stop recorded (`aborted`). A call with another
 * result (it timed out) is over: the client's output comes too late.
 */
async function takeUpPoint(
  store: Store,
  sessionId: string,
  callIds: ReadonlySet<string>,
): Promise<{ entryId: string | undefined } | undefined> {
  const meta = await store.getSession(sessionId);
  if (!meta) throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  const path = await store.getActivePath(sessionId);
  const results = path.filter((e) => callIds.has(resultOf(e) ?? ""));
  for (const result of results) {
    if (result.type === "message" && result.message.role === "tool" && result.message.error?.code === "aborted") continue;
    throw new ArborError(
      "invalid_input",
      `Call ${resultOf(result)} of session ${sessionId} stopped waiting for the client's output (it timed out); start a new turn instead.`,
    );
  }
  const first = results[0];
  return { entryId: first ? (first.parentId ?? undefined) : undefined };
}

function resultOf(entry: Entry): string | undefined {
  if (entry.type !== "message" || entry.message.role !== "tool") return undefined;
  const part = entry.message.content.find((p) => p.type === "tool-result");
  return part?.toolCallId;
}
