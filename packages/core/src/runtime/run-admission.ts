import type { Principal } from "../auth/principal.js";
import { ArborError, isArborError } from "../errors.js";
import type { RunHandle, RunInput } from "../loop/run-types.js";
import { assertSessionId } from "../model/ids.js";
import type { SessionLease } from "../store/lease.js";
import type { Store } from "../store/store.js";
import type { RuntimeAccess } from "./access.js";
import type { AdmitResult, DriverInfo, RuntimeRuns, SessionDriver, StartInput, StartResult, Steered } from "./runs-api.js";
import type { SessionSlot } from "./session-slot.js";
import type { SteerResult } from "./sessions-api.js";

/*
 * Admitting a prompt, before anything is streamed: a front door must answer "started", "steered"
 * or "busy" in its status line, so the decision cannot wait for the run. Order:
 *   1. check the input (ids, the session, the entry to continue from): bad input is refused having
 *      written nothing;
 *   2. a driver in this runtime, or a lease the store refuses us, is a busy session: the prompt steers
 *      its run, or is refused with session_busy naming the driver;
 *   3. otherwise the lease is ours, taken before answering, and the run starts under it; a second
 *      runtime over the store asking now is refused at step 2 whatever it read before.
 * If the process dies after step 3 the lease dies with it (its pid, or its heartbeat), so nothing
 * is left held; a run that never reached its work releases the lease when it settles.
 */

export interface AdmissionDeps {
  store: Store;
  slot: SessionSlot;
  /** What this process runs, as the lease names it. */
  holderName: string;
  steer(sessionId: string, text: string): Promise<SteerResult>;
  /** Starts a run (or a replay, when the input carries one) under a lease already taken. */
  launch(input: StartInput, lease: SessionLease | undefined): RunHandle;
  /** Whether this runtime has the session queued or running (synchronous: no await between it and the lease). */
  drivenHere(sessionId: string): boolean;
  access: RuntimeAccess;
}

export function runAdmission(deps: AdmissionDeps): Pick<RuntimeRuns, "start" | "admit"> {
  const { store, slot } = deps;

  /**
   * The session read once: it must exist and, for a principal, be one it may run in (a session of
   * another project is "not found" to it, as everywhere).
   */
  async function checkInput(sessionId: string, fromEntryId: string | undefined, principal: Principal | undefined): Promise<void> {
    assertSessionId(sessionId);
    if (fromEntryId !== undefined) assertSessionId(fromEntryId);
    deps.access.require(principal, "run", "Sending a prompt");
    const meta = await store.getSession(sessionId);
    if (!meta || !deps.access.sees(principal, meta)) {
      throw new ArborError("session_not_found", `Session ${sessionId} does not exist; leave the session out to start a new one.`);
    }
    if (fromEntryId !== undefined && !(await store.getEntry(sessionId, fromEntryId))) {
      throw new ArborError(
        "entry_not_found",
        `Entry ${fromEntryId} does not exist in session ${sessionId}; pick one from the session's snapshot.`,
      );
    }
  }

  /** A busy session: the prompt steers its run when asked to and a run reads it, else `session_busy`. */
  async function whenBusy(sessionId: string, message: string | undefined, steer: boolean, refusal: ArborError): Promise<Steered> {
    if (steer && message !== undefined) {
      try {
        const steered = await deps.steer(sessionId, message);
        const driver = refusal.details?.holder as DriverInfo | undefined;
        return { kind: "steered", sessionId, messageId: steered.messageId, ...(driver ? { driver } : {}) };
      } catch (err) {
        // A compaction or leaf move drives it, or the run just ended: nothing reads an inbox now.
        if (!isArborError(err, "session_not_running")) throw err;
      }
    }
    throw refusal;
  }

  const here: SessionDriver = { where: "this_runtime" };

  return {
    async start(input): Promise<StartResult> {
      const { principal } = input;
      if (input.sessionId === undefined) {
        if (input.fromEntryId !== undefined) {
          throw new ArborError("invalid_input", "fromEntryId needs sessionId: the entry is looked up in that session.");
        }
        deps.access.require(principal, "run", "Starting a run");
        const cwd = deps.access.workspace(principal, input.cwd, "Starting a run");
        return { kind: "started", handle: deps.launch(cwd === undefined ? input : { ...input, cwd }, undefined) };
      }
      const sessionId = input.sessionId;
      await checkInput(sessionId, input.fromEntryId, principal);
      const steer = (input.onBusy ?? "steer") === "steer" && input.fromEntryId === undefined && input.replay === undefined;
      if (deps.drivenHere(sessionId)) return whenBusy(sessionId, steerText(input.prompt), steer, slot.busyError(sessionId, here));
      let lease: SessionLease;
      try {
        lease = await store.acquireLease(
          sessionId,
          deps.holderName,
          input.requestKey === undefined ? undefined : { request: input.requestKey },
        );
      } catch (err) {
        if (!isArborError(err, "session_busy")) throw err;
        return whenBusy(sessionId, steerText(input.prompt), steer, err);
      }
      const handle = deps.launch(input, lease);
      // The run releases the lease when it ends; this covers a run that ended before taking it up.
      void handle.result.finally(() => lease.release()).catch(() => {});
      return { kind: "started", handle };
    },
    async admit(sessionId, message, options = {}): Promise<AdmitResult> {
      await checkInput(sessionId, options.fromEntryId, options.principal);
      const steer = (options.onBusy ?? "steer") === "steer" && options.fromEntryId === undefined;
      const driver = await slot.busy(sessionId);
      if (driver) return whenBusy(sessionId, message, steer, slot.busyError(sessionId, driver));
      return { kind: "free" };
    },
  };
}

/** A prompt as a steering message: its text; undefined when it carries files, which an inbox does not hold. */
function steerText(prompt: RunInput["prompt"]): string | undefined {
  if (typeof prompt === "string") return prompt;
  const texts = prompt.flatMap((part) => (part.type === "text" ? [part.text] : []));
  return texts.length === prompt.length ? texts.join("\n") : undefined;
}

/** The run input a started prompt runs with: admitted already, so it waits for nothing it was not told of. */
export function admittedInput(input: StartInput): RunInput {
  const { onBusy: _, replay: __, ...rest } = input;
  return { ...rest, busy: "queue" };
}
