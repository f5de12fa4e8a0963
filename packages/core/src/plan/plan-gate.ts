import { type AskHandler, DurableAskBase, type DurableAskOptions, recordAsk, type WaitEnds } from "../asks/durable-wait.js";
import { ArborError } from "../errors.js";
import type { AskAnswer, AskRecord } from "../store/asks.js";
import { sessionOfPlan } from "./plan-schema.js";

/** A plan waiting for a person, as `plan_approval_request` showed it. */
export interface PlanApprovalRequest {
  planId: string;
  sessionId: string;
  title: string;
  steps: { id: number; title: string; status: string }[];
}

/** A plan waiting for approval as the store keeps it: an ask of kind `plan`, answered by its id or the plan's. */
export interface PendingPlanApproval extends PlanApprovalRequest {
  /** The ask's id (`plan_…`), which `arbor approve <ask-id>` and `runtime.asks.answer` take. */
  askId: string;
  /** ISO-8601: unanswered by then, the plan is refused. */
  expiresAt: string;
}

export interface PlanApprovalAnswer {
  approved: boolean;
  /** Why, in the approver's words; a rejection's reason is told to the user and the model. */
  reason?: string;
}

/**
 * How plan approvals are answered when the runtime has someone to ask (a terminal prompt, `--yes`).
 * Returning undefined leaves the request waiting for `runtime.approvePlan` (the server's route).
 */
export type PlanApprovalHandler = AskHandler<PlanApprovalRequest, PlanApprovalAnswer>;

export interface PlanGateOptions extends DurableAskOptions {
  handler?: PlanApprovalHandler;
}

const aborted = () => new ArborError("aborted", "The run was aborted while its plan waited for approval.");

function answerValue(answer: PlanApprovalAnswer): PlanApprovalAnswer {
  return { approved: answer.approved, ...(answer.reason === undefined ? {} : { reason: answer.reason }) };
}

function fromStored(answer: AskAnswer): PlanApprovalAnswer {
  return answerValue(answer.value as unknown as PlanApprovalAnswer);
}

function expired(record: AskRecord): PlanApprovalAnswer {
  return { approved: false, reason: `nobody answered before the approval expired at ${record.expiresAt}` };
}

/** Stopping answers nothing: the ask stays in the store for the run that takes over (or expires). */
const ENDS: WaitEnds<PlanApprovalAnswer> = {
  answered: fromStored,
  expired,
  aborted: () => {
    throw aborted();
  },
};

export function pendingPlanOf(record: AskRecord): PendingPlanApproval {
  const { planId, sessionId, title, steps } = record.request as unknown as PlanApprovalRequest;
  return { planId, sessionId, title, steps, askId: record.id, expiresAt: record.expiresAt };
}

/**
 * Plans waiting for approval, kept in the store as asks of kind `plan` (see `Store.createAsk`):
 * every process over the store lists and answers them, exactly once (the store's compare-and-set
 * decides which answer counts). A run waits here on its plan's ask: an answer given in this process
 * settles it at once, one given elsewhere when the run next reads the store (`pollMs`). A run cut
 * off (aborted, its process killed) leaves the ask unanswered; the run that takes the session over
 * waits on the same record, or takes the answer given meanwhile.
 */
export class PlanGate extends DurableAskBase<PendingPlanApproval, PlanApprovalAnswer, PlanGateOptions> {
  protected readonly kind = "plan";

  /** The plan's ask: the one asked before (by a run cut off), else a new record. */
  async open(request: PlanApprovalRequest): Promise<AskRecord> {
    const earlier = await this.find(request.planId);
    if (earlier) return earlier;
    return recordAsk(this.options, {
      id: this.newId(),
      kind: "plan",
      sessionId: request.sessionId,
      request: { ...request },
    });
  }

  /**
   * Waits on an ask `open` returned: resolves with its answer (at once when it has one, refused
   * when it expired), asking the handler if there is one; rejects with `aborted` when `signal` fires.
   * The waiter is registered before this returns, so an answer that races the event finds it.
   */
  wait(record: AskRecord, signal: AbortSignal): Promise<PlanApprovalAnswer> {
    if (record.answer) return Promise.resolve(fromStored(record.answer));
    if (this.options.now() >= Date.parse(record.expiresAt)) return Promise.resolve(expired(record));
    if (signal.aborted) return Promise.reject(aborted());
    const pending = pendingPlanOf(record);
    const waited = this.waiters.wait(pending.planId, record, pending, signal, ENDS);
    const { handler } = this.options;
    if (!handler) return waited;
    const { askId: _, expiresAt: __, ...request } = pending;
    Promise.resolve()
      .then(() => handler(request, signal))
      .then(
        (answer) => {
          if (answer) this.reply(pending.planId, answer);
        },
        (err: unknown) =>
          this.reply(pending.planId, {
            approved: false,
            reason: `The approval prompt failed: ${err instanceof Error ? err.message : String(err)}`,
          }),
      );
    return waited;
  }

  /**
   * Answers a plan a run of this runtime waits on (the handler's answer); false when none here
   * waits on it. The store decides: when another answer landed first, the run takes that one.
   */
  reply(planId: string, answer: PlanApprovalAnswer): boolean {
    const askId = this.waiters.pendingOf(planId)?.askId;
    if (askId === undefined) return false;
    return this.waiters.reply(planId, askId, answerValue(answer), ENDS, (err) => ({
      approved: false,
      reason: `the answer could not be recorded: ${String(err)}`,
    }));
  }

  /**
   * Answers the plan's ask in the store, from whichever process, exactly once; a run of this runtime
   * waiting on it goes on at once (`waitedHere`), one elsewhere when it next reads the store. Throws
   * `ask_already_answered` or `ask_expired` having changed nothing.
   */
  async answer(record: AskRecord, answer: PlanApprovalAnswer, by?: string): Promise<{ record: AskRecord; waitedHere: boolean }> {
    return this.waiters.answer(record.id, answerValue(answer), by, pendingPlanOf(record).planId);
  }

  /** The ask of a plan (its latest, should a plan have been asked twice), from this runtime or the store. */
  async find(planId: string): Promise<AskRecord | undefined> {
    const here = this.waiters.pendingOf(planId);
    if (here) return this.options.store.getAsk(here.askId);
    const asks = await this.options.store.listAsks({ sessionId: sessionOfPlan(planId), kind: "plan" });
    return asks.filter((r) => pendingPlanOf(r).planId === planId).at(-1);
  }

  /** Unanswered, unexpired plans of every process over the store, oldest first; one session's when given. */
  async listAll(sessionId?: string): Promise<PendingPlanApproval[]> {
    return (await this.openRecords(sessionId)).map(pendingPlanOf);
  }

  /** Plans runs of this runtime wait on, oldest first; only one session's when given. */
  list(sessionId?: string): PlanApprovalRequest[] {
    const all = this.waiters.pendings().map(({ askId: _, expiresAt: __, ...request }) => request);
    return sessionId === undefined ? all : all.filter((r) => r.sessionId === sessionId);
  }
}
