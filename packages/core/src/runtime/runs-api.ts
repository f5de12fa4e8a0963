import type { Principal } from "../auth/principal.js";
import type { ReplaySpec } from "../goal/replay.js";
import type { RunHandle, RunInput } from "../loop/run-types.js";
import type { LeaseHolder } from "../store/lease.js";
import type { SqlExecutor } from "../store/store.js";
import type { QueuedRun, QueueRunInput } from "./queue-run.js";

export type { QueuedRun, QueueRunInput } from "./queue-run.js";

/** Who drives a session now: a run or session operation of this runtime, or another process holding its lease. */
export type SessionDriver = { where: "this_runtime" } | { where: "elsewhere"; holder: LeaseHolder };

/** What a resumed run may set; the rest comes from the session. */
export type ResumeOptions = Pick<RunInput, "agent" | "model" | "maxTurns" | "signal" | "debug" | "middleware">;

/**
 * `runtime.runs.start`: a prompt for a session that has a driver either steers the driving run
 * (`steer`, when it is a run) or is refused with `session_busy` (`reject`); it is never queued.
 */
export interface StartInput extends Omit<RunInput, "busy"> {
  onBusy?: "steer" | "reject";
  /** Edit a past `goal` call of the session instead of sending `prompt` (see `replay`); never steers. */
  replay?: ReplaySpec;
}

/** The process that drives a session, as `session_busy` and a steered prompt name it. */
export type DriverInfo = Pick<LeaseHolder, "pid" | "host" | "purpose">;

/** A prompt handed to the run driving its session (`driver`, when known) instead of starting one. */
export interface Steered {
  kind: "steered";
  sessionId: string;
  /** The message's id in the session's inbox. */
  messageId: string;
  driver?: DriverInfo;
}

/** The answer to a prompt, known before any of its events: a run of its own, or a message to the running one. */
export type StartResult = { kind: "started"; handle: RunHandle } | Steered;

/** The answer to `admit`: the session is free for a run (which the caller queues elsewhere), or the prompt steered it. */
export type AdmitResult = { kind: "free" } | Steered;

/** `runtime.runs`: starting, following and stopping runs. */
export interface RuntimeRuns {
  /**
   * Starts a run. Never throws: bad input (an empty prompt, an unknown session or model, a missing
   * key) ends the run at once with an `error` event and `result.status === "error"`, having written
   * nothing.
   */
  run(input: RunInput): RunHandle;
  /**
   * Admits a prompt before anything is streamed: for an existing session it checks the session and
   * `fromEntryId`, then takes the session's lease (cross-process, so of two runtimes over one store
   * exactly one starts) and starts the run under it. A session with a driver steers its run
   * (`onBusy: "steer"`, the default, without `fromEntryId`) or rejects with `session_busy` naming
   * the driver. Rejects, having written nothing: `invalid_id`, `invalid_input`, `session_not_found`,
   * `entry_not_found`, `session_busy`.
   */
  start(input: StartInput): Promise<StartResult>;
  /**
   * `start`'s decision without starting: for a front door that hands the run to another process
   * (a cluster queue). `free` promises nothing about later; the run itself still takes the lease.
   */
  admit(
    sessionId: string,
    message: string,
    options?: { onBusy?: "steer" | "reject"; fromEntryId?: string; principal?: Principal },
  ): Promise<AdmitResult>;
  /**
   * Records a prompt in its session's event log (creating the session when none is named) and hands
   * it to the caller's queue in the same transaction (`enqueue` runs over the record's SQL executor):
   * both commit or neither does. The queued run is started later, wherever a worker takes it, with
   * `requestKey: key`; readers follow it from `after`. Needs a SQL store; throws `invalid_input`,
   * `invalid_id`, having written nothing.
   */
  queue(
    input: QueueRunInput,
    enqueue: (job: { sessionId: string; key: string }, sql: SqlExecutor) => Promise<void>,
  ): Promise<QueuedRun>;
  /**
   * Takes up a run whose process died while it ran (a crash, kill -9): the session is `interrupted`.
   * The run goes on from its journal as if it had not stopped: what it wrote is kept (a cut-short
   * answer too), its steps, tokens, cost, goals and plan count from where they were, and each tool
   * call left without a result is settled by its tool's `effects`: run again, or answered to
   * the model as interrupted. Like `run`, never throws: it ends at once with an `error` event,
   * having written nothing, for `session_not_found`, `session_not_interrupted` (nothing was cut
   * off), or `session_busy` (a live process drives the session). The agent defaults to the session's.
   */
  resume(sessionId: string, options?: ResumeOptions): RunHandle;
  /**
   * Edits a past `goal` call: a new branch starts just before the message that
   * made it, the call is redone with the new arguments and the run continues from there. Like
   * `run`, never throws: a bad spec ends the run at once with an `error` event, having written
   * nothing. With `busy: "reject"`, a session with a driver ends it at once with `session_busy`.
   */
  replay(
    sessionId: string,
    spec: ReplaySpec,
    options?: Pick<RunInput, "agent" | "model" | "maxTurns" | "signal" | "busy">,
  ): RunHandle;
  /**
   * Whether the session has a driver now: a run or session operation of this runtime (queued or
   * going), or another process holding the session's lease. Undefined when it is idle.
   */
  busy(sessionId: string): Promise<SessionDriver | undefined>;
  /** Aborts this runtime's runs of the session (going or queued); false when it has none. */
  abort(sessionId: string, reason?: unknown): boolean;
}
