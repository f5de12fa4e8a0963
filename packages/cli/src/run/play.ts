import type { RunInput, Store } from "@arbor/core";
import type { RetryNotice } from "@arbor/core/llm";
import type { ElicitationHandler } from "@arbor/core/session";
import { EXIT_OK, exitCodeForRun, hintFor } from "../errors.js";
import { type Io, writeLines } from "../io.js";
import { createJsonView, createTextView, type RunOutcome, type RunView } from "../render/live.js";
import { pickStyle } from "../render/style.js";
import { type Driven, driveRun, type RunHandleLike } from "./drive.js";
import { createElicitationHandler } from "./elicitations.js";
import { type AskHandler, createAskHandler } from "./permissions.js";
import { createPlanApprovalHandler, type PlanApprovalHandler } from "./plan-approval.js";
import { createQuestionHandler, type QuestionHandler } from "./questions.js";
import { NEEDS_ANSWER, type Unanswered, unansweredMessage } from "./unanswered.js";

/** A prompt the session's running run took instead of a run of its own (see `runtime.runs.start`). */
export interface SteeredRun {
  kind: "steered";
  sessionId: string;
  messageId: string;
  driver?: { purpose: string };
}

/** What `playRun` needs of a runtime; `playable(createRuntime(…))` is one. */
export interface RuntimeLike<Input> {
  run(input: Input): RunHandleLike;
  /**
   * Instead of `run`, when given: decides and starts in one step (the session's lease is taken before
   * it answers), so no other process starts a run between "the session is free" and this run; a
   * session another process runs takes the prompt as a steering message instead.
   */
  start?(input: Input): Promise<{ kind: "started"; handle: RunHandleLike } | SteeredRun>;
  /** Resolves once every event the session's run emitted so far is in the store's event log (see `driveRun`). */
  logged?(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

/** A runtime as `playRun` drives it: its `runs.run`, and `close`. */
export function playable(runtime: {
  runs: { run(input: RunInput): RunHandleLike };
  events: { logged(sessionId: string): Promise<void> };
  close(): Promise<void>;
}): RuntimeLike<RunInput> {
  return {
    run: (input) => runtime.runs.run(input),
    logged: (sessionId) => runtime.events.logged(sessionId),
    close: () => runtime.close(),
  };
}

export interface PlayOptions<Input> {
  io: Io;
  json: boolean;
  /** `--yes`: allow every ask once. */
  yes: boolean;
  store: Store;
  /** The store as messages name it, for hints about a missing session. */
  storeLabel: string;
  /** Makes the runtime; `onPermission` answers its asks and `onPlanApproval` its plans, through the view, which `onRetry` tells of retries. */
  createRuntime(
    onPermission: AskHandler,
    onPlanApproval: PlanApprovalHandler,
    onRetry: (notice: RetryNotice) => void,
    onQuestion: QuestionHandler,
    onElicitation: ElicitationHandler,
  ): RuntimeLike<Input>;
  input: Input;
  /** What to run next for the session, as `[label, command]` lines of the text view. */
  next(sessionId: string): (readonly [string, string])[];
  /** ` --store <spec>` as the commands the CLI suggests should repeat it; empty for the default store. */
  storeArg?: string;
}

export function createView(io: Io, json: boolean): RunView {
  if (json) return createJsonView(io);
  return createTextView(io, {
    style: pickStyle(io.stdout.isTTY, io.env),
    columns: io.stdout.columns,
    live: io.stdout.isTTY,
  });
}

/** Whether the run left a session in the store: input errors end a run before it writes one. */
async function sessionWritten(store: Store, outcome: RunOutcome): Promise<boolean> {
  if (outcome.sessionId === "") return false;
  if (outcome.status !== "error") return true;
  try {
    return (await store.getSession(outcome.sessionId)) !== undefined;
  } catch {
    return false;
  }
}

/** The error as the person at the terminal should read it: with what to do next, when the CLI knows. */
function withHint(outcome: RunOutcome, storeLabel: string): RunOutcome {
  if (!outcome.error) return outcome;
  const hint = hintFor(outcome.error.code, storeLabel);
  return hint ? { ...outcome, error: { ...outcome.error, message: `${outcome.error.message} ${hint}` } } : outcome;
}

/** What `arbor run --session` says when the session's running run took its prompt. */
function writeSteered(io: Io, json: boolean, steered: SteeredRun): void {
  const by = steered.driver ? ` (${steered.driver.purpose})` : "";
  writeLines(
    io.stdout,
    json
      ? [JSON.stringify({ type: "steered", session_id: steered.sessionId, message_id: steered.messageId })]
      : [`Sent to the run in progress in session ${steered.sessionId}${by}; it reads the message before its next model call.`],
  );
}

/**
 * One run from start to exit code: the view (JSON lines or the live text view), asks answered by
 * whoever can (see `permissions.ts`), Ctrl-C turned into an abort, then the usage line and where the session is.
 */
export async function playRun<Input>(opts: PlayOptions<Input>): Promise<{ code: number; driven?: Driven }> {
  const { io } = opts;
  const view = createView(io, opts.json);
  // Set once the run has started; the handlers are only called after that.
  let handle: RunHandleLike | undefined;
  let unanswered: Unanswered | undefined;
  const stopOn = (question: Unanswered) => {
    unanswered ??= question;
    handle?.abort(new Error("no one to answer the run's question"));
  };
  const runtime = opts.createRuntime(
    createAskHandler({
      yes: opts.yes,
      io,
      view,
      onNobody: (p) =>
        stopOn({
          kind: "permission",
          sessionId: p.sessionId,
          agent: p.agent,
          permission: p.request.permission,
          patterns: p.request.patterns,
        }),
    }),
    createPlanApprovalHandler({
      yes: opts.yes,
      io,
      view,
      onNobody: (r) => stopOn({ kind: "plan", planId: r.planId, title: r.title }),
    }),
    (notice) => view.retrying(notice),
    createQuestionHandler({
      io,
      view,
      onNobody: (q) => stopOn({ kind: "question", id: q.id, sessionId: q.sessionId, question: q.question }),
    }),
    createElicitationHandler({ io, view, storeArg: opts.storeArg ?? "" }),
  );
  try {
    const started = runtime.start
      ? await runtime.start(opts.input)
      : { kind: "started" as const, handle: runtime.run(opts.input) };
    if (started.kind === "steered") {
      writeSteered(io, opts.json, started);
      return { code: EXIT_OK };
    }
    handle = started.handle;
    const driven = await driveRun({ io, handle, view, ...(runtime.logged ? { logged: runtime.logged } : {}) });
    const outcome: RunOutcome =
      unanswered === undefined || driven.interrupted
        ? driven.outcome
        : {
            ...driven.outcome,
            status: "error",
            error: { code: NEEDS_ANSWER, message: unansweredMessage(unanswered, opts.storeArg ?? "") },
          };
    const written = await sessionWritten(opts.store, outcome);
    view.end({
      outcome: withHint(outcome, opts.storeLabel),
      elapsedMs: driven.elapsedMs,
      session: written ? { id: outcome.sessionId, next: opts.next(outcome.sessionId) } : undefined,
    });
    return { code: exitCodeForRun(outcome), driven: { ...driven, outcome } };
  } finally {
    await runtime.close();
  }
}
