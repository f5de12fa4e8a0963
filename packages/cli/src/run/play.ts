import type { Store } from "@arbor/core";
import { exitCodeForRun, hintFor } from "../errors.js";
import type { Io } from "../io.js";
import { createJsonView, createTextView, type RunOutcome, type RunView } from "../render/live.js";
import { pickStyle } from "../render/style.js";
import { type Driven, driveRun, type RunHandleLike } from "./drive.js";
import { type AskHandler, createAskHandler } from "./permissions.js";
import { createPlanApprovalHandler, type PlanApprovalHandler } from "./plan-approval.js";

/** What `playRun` needs of a runtime; `createRuntime`'s result is one. */
export interface RuntimeLike<Input> {
  run(input: Input): RunHandleLike;
  close(): Promise<void>;
}

export interface PlayOptions<Input> {
  io: Io;
  json: boolean;
  /** `--yes`: allow every ask once. */
  yes: boolean;
  store: Store;
  /** The store as messages name it, for hints about a missing session. */
  storeLabel: string;
  /** Makes the runtime; `onPermission` answers its asks and `onPlanApproval` its plans, through the view. */
  createRuntime(onPermission: AskHandler, onPlanApproval: PlanApprovalHandler): RuntimeLike<Input>;
  input: Input;
  /** What to run next for the session, as `[label, command]` lines of the text view. */
  next(sessionId: string): (readonly [string, string])[];
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

/**
 * One run from start to exit code: the view (JSON lines or the live text view), asks answered by
 * whoever can (see `permissions.ts`), Ctrl-C turned into an abort, then the usage line and where the session is.
 */
export async function playRun<Input>(opts: PlayOptions<Input>): Promise<{ code: number; driven: Driven }> {
  const { io } = opts;
  const view = createView(io, opts.json);
  const runtime = opts.createRuntime(
    createAskHandler({ yes: opts.yes, io, view }),
    createPlanApprovalHandler({ yes: opts.yes, io, view }),
  );
  try {
    const driven = await driveRun({ io, handle: runtime.run(opts.input), view });
    const { outcome } = driven;
    const written = await sessionWritten(opts.store, outcome);
    view.end({
      outcome: withHint(outcome, opts.storeLabel),
      elapsedMs: driven.elapsedMs,
      session: written ? { id: outcome.sessionId, next: opts.next(outcome.sessionId) } : undefined,
    });
    return { code: exitCodeForRun(outcome), driven };
  } finally {
    await runtime.close();
  }
}
