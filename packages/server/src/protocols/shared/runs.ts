import {
  ArborError,
  isArborError,
  type PendingPermission,
  type PlanApprovalRequest,
  type RunHandle,
  type Runtime,
} from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { PendingQuestion, SteerResult } from "@arbor/core/session";
import type { Principal } from "@arbor/core/store";
import { sessionOfPlan } from "@arbor/core/wire";
import { requireAccepting, type ServerContext } from "../../context.js";
import type { ResponseSpec, RouteSpec } from "../../http/route.js";
import { followRun } from "../../streams/run-stream.js";
import { type AskAnswer, type AskRef, askIdOf } from "./asks.js";
import { type ChatTurn, toRunInput } from "./run-input.js";

/**
 * A turn a cluster can queue: what its queued job carries. A queued chat's new session is created by
 * the queue (with `newSessionId`, else a generated id), and its request key is the queue's own.
 */
export type QueueableTurn = Omit<ChatTurn, "requestKey" | "system" | "tools" | "workspace" | "attachments" | "mcpPrompt">;

/** Where a reader starts in a session's event log (the runtime's `events.reader`). */
export type ReadFrom = Parameters<Runtime["events"]["reader"]>[1];

/**
 * What a protocol's chat route can answer besides its stream: `invalid` (400) and `notFound` (404)
 * are its own; a session busy with another run (409) and a draining instance (503) are every one's.
 */
export function chatRouteResponses(stream: ResponseSpec, invalid: string, notFound: string, busy = ""): RouteSpec["responses"] {
  return {
    200: stream,
    400: invalid,
    404: notFound,
    409: `The session already has a run in progress${busy}.`,
    503: "With --cluster: this instance is shutting down and starts no run; send the request to another.",
  };
}

/** A run a protocol started (or queued): its session, and a reader from its first event. */
export interface StartedRun {
  sessionId: string;
  reader: RunEventReader;
  /** The run itself when this instance drives it (a queued chat's runs wherever a worker takes it). */
  handle?: RunHandle;
}

/**
 * Where an answer went: to a run of this instance, or through the cluster to the one whose run
 * waits. `resumed`: the session of the run a plan's answer started, its old run being gone.
 */
export interface Answered {
  where: "here" | "elsewhere";
  resumed?: string;
}

/** A run this instance started and drives. */
export interface LocalRun extends StartedRun {
  handle: RunHandle;
}

/**
 * The runtime calls every protocol makes, in one place: admitting and starting turns, reading run
 * events, and answering asks. Protocols map their wire to these and never reach the runtime's busy
 * state, its event recording or the cluster themselves, so a change in how the runtime decides is
 * made here once.
 */
export class ProtocolRuntime {
  constructor(private readonly ctx: ServerContext) {}

  /**
   * Whether a turn may start now: refused (503) when this cluster instance takes no work; for a
   * session with a driver (here or in another process) the runtime hands the message to its run when
   * `steer` is allowed, and otherwise refuses with `session_busy` (409), before anything streams.
   */
  async admit(turn: ChatTurn, options: { steer: boolean }): Promise<{ steered: SteerResult } | undefined> {
    requireAccepting(this.ctx);
    const sessionId = turn.sessionId;
    if (sessionId === undefined) return undefined;
    const admitted = await this.ctx.runtime.runs.admit(sessionId, turn.message, {
      onBusy: options.steer ? "steer" : "reject",
      ...(turn.principal === undefined ? {} : { principal: turn.principal }),
      ...(turn.fromEntryId === undefined ? {} : { fromEntryId: turn.fromEntryId }),
    });
    return admitted.kind === "steered"
      ? { steered: { sessionId: admitted.sessionId, messageId: admitted.messageId } }
      : undefined;
  }

  /**
   * Admits and starts a turn in one step, the way every door should: refused (503) when this cluster
   * instance takes no work; bad input (an unknown session or entry) refused before anything is
   * written; a session with a driver steers its run (when `steer` allows) or is refused with
   * `session_busy` (409). Otherwise the run starts here under the session's lease — the runtime
   * checks the session once and takes the lease before answering, so there is no gap between the
   * decision and the run — or, in a cluster, is recorded and queued for whichever instance takes it.
   */
  async begin(turn: ChatTurn, options: { steer: boolean }): Promise<{ steered: SteerResult } | { started: StartedRun }> {
    requireAccepting(this.ctx);
    if (this.ctx.cluster) {
      // A queued chat carries text only: resources and prompts would be dropped on the way, so say so.
      if (turn.attachments?.length || turn.mcpPrompt) {
        throw new ArborError(
          "invalid_input",
          "MCP attachments and prompts are not sent through a cluster's queue yet: run arbor serve without --cluster to use them.",
        );
      }
      const admitted = await this.admit(turn, options);
      return admitted ?? { started: await this.startOrQueue(turn) };
    }
    const { busy: _busy, ...input } = toRunInput(turn);
    const started = await this.ctx.runtime.runs.start({ ...input, onBusy: options.steer ? "steer" : "reject" });
    if (started.kind === "steered") return { steered: { sessionId: started.sessionId, messageId: started.messageId } };
    return {
      started: { sessionId: started.handle.sessionId, reader: followRun(this.ctx, started.handle), handle: started.handle },
    };
  }

  /** Whether a run of this runtime or another process drives the session. */
  async isBusy(sessionId: string): Promise<boolean> {
    return (await this.ctx.runtime.runs.busy(sessionId)) !== undefined;
  }

  /**
   * Starts an admitted turn on this instance under its session's lease (the runtime refuses with
   * `session_busy`, before any event, a session another driver took since `admit`); the runtime
   * records its events and this reads them from the first.
   */
  async start(turn: ChatTurn): Promise<LocalRun> {
    requireAccepting(this.ctx);
    const { busy: _reject, ...input } = toRunInput(turn);
    const started = await this.ctx.runtime.runs.start({ ...input, onBusy: "reject" });
    if (started.kind !== "started") {
      throw new ArborError("session_busy", `Session ${started.sessionId} took the message as a steer instead of a run.`);
    }
    const handle = started.handle;
    return { sessionId: handle.sessionId, reader: followRun(this.ctx, handle), handle };
  }

  /**
   * An admitted turn in a cluster is recorded and queued in one transaction, and the stream follows
   * its run from the log wherever it is driven; without a cluster it starts here.
   */
  async startOrQueue(turn: QueueableTurn): Promise<StartedRun> {
    const { cluster, runtime } = this.ctx;
    if (!cluster) return this.start(turn);
    // A queued chat of a new session: the runtime's check of a started one, made before it is queued.
    if (turn.sessionId === undefined && turn.principal) {
      runtime.access.require(turn.principal, "run", "Starting a run");
      runtime.access.workspace(turn.principal, undefined, "Starting a run");
    }
    const ref = await cluster.queueChat(turn);
    return { sessionId: ref.sessionId, reader: await runtime.events.reader(ref.sessionId, { after: ref.after }) };
  }

  reader(sessionId: string, from: ReadFrom): Promise<RunEventReader> {
    return this.ctx.runtime.events.reader(sessionId, from);
  }

  /** The session of an event id this server streamed recently; undefined when it is not one. */
  sessionOfRecent(eventId: number): string | undefined {
    return this.ctx.runtime.events.sessionOfRecent(eventId);
  }

  /** Asks runs of this instance wait on, oldest first (one session's when given). */
  pending(sessionId?: string): { permissions: PendingPermission[]; plans: PlanApprovalRequest[] } {
    const { runtime } = this.ctx;
    return { permissions: runtime.asks.pendingPermissions(sessionId), plans: runtime.asks.pendingPlanApprovals(sessionId) };
  }

  /** Asks waiting for an answer: permission asks of every instance over the store, plans of this one's runs. */
  async pendingAll(
    sessionId?: string,
    principal?: Principal,
  ): Promise<{ permissions: PendingPermission[]; plans: PlanApprovalRequest[]; questions: PendingQuestion[] }> {
    const { runtime } = this.ctx;
    if (principal && sessionId !== undefined) await runtime.access.session(principal, sessionId, "read", "Listing asks");
    const [permissions, plans] = [await runtime.asks.listPermissions(sessionId), runtime.asks.pendingPlanApprovals(sessionId)];
    const questions = await runtime.asks.listQuestions(sessionId);
    return {
      permissions: await runtime.access.visible(principal, permissions, (p) => p.sessionId),
      plans: await runtime.access.visible(principal, plans, (p) => p.sessionId),
      questions: await runtime.access.visible(principal, questions, (q) => q.sessionId),
    };
  }

  /** Whether a run of this instance still waits on the ask. */
  isWaiting(ref: AskRef, sessionId?: string): boolean {
    const { permissions, plans } = this.pending(sessionId);
    if (ref.kind === "question") return this.ctx.runtime.asks.pendingQuestions(sessionId).some((q) => q.id === ref.id);
    return ref.kind === "permission" ? permissions.some((p) => p.id === ref.id) : plans.some((p) => p.planId === ref.planId);
  }

  /**
   * Whether the ask still waits for its answer on any instance: an unanswered record in the store
   * (a run records its ask before announcing it, and a run taken over by another instance asks, or
   * waits on the same record, there).
   */
  async isWaitingAnywhere(ref: AskRef, sessionId: string): Promise<boolean> {
    const id = askIdOf(ref);
    const stored = await this.ctx.runtime.asks.listPending(sessionId);
    return stored.some((a) => (a.kind === "plan" ? a.plan.planId === id : a.id === id));
  }

  /**
   * Answers an ask a run of this instance waits on; undefined when none does (answered already, its
   * run ended, or never asked). A plan recorded as waiting whose run is gone is answered by a new
   * run over its session, recorded like any other.
   */
  async answerHere(answer: AskAnswer, principal?: Principal): Promise<Answered | undefined> {
    const { runtime } = this.ctx;
    const by = principal === undefined ? {} : { principal };
    if (answer.kind === "permission") {
      // The ask is a record in the store: the run waiting on it, on any instance, takes the answer from there.
      try {
        await runtime.asks.answerPermission(answer.id, answer.reply, {
          ...(answer.message === undefined ? {} : { message: answer.message }),
          ...(answer.scope === undefined ? {} : { scope: answer.scope }),
          ...by,
        });
        return { where: "here" };
      } catch (err) {
        if (isArborError(err, "ask_not_found")) return undefined;
        throw err;
      }
    }
    if (answer.kind === "question") {
      // Like a permission ask, a question is a record in the store: its run, on any instance, takes the answer there.
      try {
        await runtime.asks.answerQuestion(answer.id, answer.answer, by);
        return { where: "here" };
      } catch (err) {
        if (isArborError(err, "ask_not_found")) return undefined;
        throw err;
      }
    }
    const result = await runtime.asks.approvePlan(answer.planId, answer.approved, answer.reason, { busy: "reject", ...by });
    if (!result.run) return { where: "here" };
    followRun(this.ctx, result.run);
    return { where: "here", resumed: result.run.sessionId };
  }

  /** Answers an ask a run of another cluster instance waits on; undefined without a cluster or when none does. */
  async answerElsewhere(answer: AskAnswer): Promise<Answered | undefined> {
    const { cluster } = this.ctx;
    // A question's answer is in the store already (answerHere), whichever instance's run waits on it.
    if (!cluster || answer.kind === "question") return undefined;
    const taken =
      answer.kind === "permission"
        ? await cluster.replyPermission(answer.id, answer.reply, answer.message, answer.scope)
        : await cluster.approvePlan(answer.planId, answer.approved, answer.reason);
    return taken ? { where: "elsewhere" } : undefined;
  }

  /** Before a protocol answers a session's asks: its caller may (the runtime's check), and the session exists. */
  async mayAnswerIn(sessionId: string, principal: Principal | undefined): Promise<void> {
    if (principal) await this.ctx.runtime.access.answer(principal, sessionId, "Answering an ask");
    if (!(await this.ctx.store.getSession(sessionId))) {
      throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
    }
  }

  /**
   * Answers an ask wherever its run waits: here first, then through the cluster. With a principal,
   * the runtime's check comes first (its `run` scope on a session it created, or `admin`).
   */
  async answer(answer: AskAnswer, principal?: Principal): Promise<Answered | undefined> {
    const planSession = answer.kind === "plan" ? sessionOfPlan(answer.planId) : "";
    if (principal && planSession !== "") await this.ctx.runtime.access.answer(principal, planSession, "Answering a plan");
    const stored = answer.kind !== "plan";
    const waitsHere = stored || this.isWaiting({ kind: "plan", planId: answer.planId });
    if (waitsHere) {
      const here = await this.answerHere(answer, principal);
      // An ask a token may not see is one it cannot answer anywhere else either.
      if (here || (principal?.projects !== undefined && stored) || answer.kind === "question") return here;
    }
    const elsewhere = await this.answerElsewhere(answer);
    if (elsewhere || stored) return elsewhere;
    // No live run waits on the plan anywhere: the runtime answers a recorded one (or says plan_not_found).
    return this.answerHere(answer, principal);
  }

  /**
   * Records the client's outputs for calls of its functions (durable asks): the run waiting on them
   * goes on wherever it runs. When that run is gone (its process died or was stopped), the runtime
   * takes the session up here: that run, read from its first event.
   */
  async answerFunctions(
    sessionId: string,
    outputs: ReadonlyArray<{ callId: string; output: string }>,
    principal?: Principal,
  ): Promise<LocalRun | undefined> {
    const { runtime } = this.ctx;
    const { run } = await runtime.asks.answerFunctions(sessionId, outputs, principal ? { principal } : {});
    return run ? { sessionId, reader: followRun(this.ctx, run), handle: run } : undefined;
  }

  /** Aborts the session's run, here or on the instance that drives it; false when none runs. */
  async abort(sessionId: string, reason: ArborError): Promise<boolean> {
    const { runtime, cluster } = this.ctx;
    if (runtime.runs.abort(sessionId, reason)) return true;
    return cluster !== undefined && (await cluster.abort(sessionId, reason.message));
  }
}
