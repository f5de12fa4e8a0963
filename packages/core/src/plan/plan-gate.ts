import { randomUUID } from "node:crypto";
import { ArborError, isArborError } from "../errors.js";
import type { AskAnswer, AskRecord } from "../store/asks.js";
import type { Store } from "../store/store.js";
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
export type PlanApprovalHandler = (
  request: PlanApprovalRequest,
  signal: AbortSignal,
) => PlanApprovalAnswer | undefined | Promise<PlanApprovalAnswer | undefined>;

export interface PlanGateOptions {
  store: Store;
  /** Milliseconds since the epoch: when an ask is made, answered, and expires. */
  now(): number;
  /** How long a plan waits for an answer before it is refused. */
  ttlMs: number;
  /** How often a waiting run reads its ask from the store, for an answer given in another process. */
  pollMs: number;
  handler?: PlanApprovalHandler;
}

interface Waiter {
  pending: PendingPlanApproval;
  /** Settles the wait with the ask's one answer (the store's, whoever gave it). */
  settle(answer: PlanApprovalAnswer): void;
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
export class PlanGate {
  private readonly waiting = new Map<string, Waiter>();

  constructor(private readonly options: PlanGateOptions) {}

  /** The plan's ask: the one asked before (by a run cut off), else a new record. */
  async open(request: PlanApprovalRequest): Promise<AskRecord> {
    const earlier = await this.find(request.planId);
    if (earlier) return earlier;
    const id = `plan_${randomUUID()}`;
    const now = this.options.now();
    return this.options.store.createAsk({
      id,
      kind: "plan",
      sessionId: request.sessionId,
      request: { ...request },
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.ttlMs).toISOString(),
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
    const pending = pendingPlanOf(record);
    return new Promise<PlanApprovalAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(aborted());
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const finish = (done: () => void) => {
        if (settled) return;
        settled = true;
        if (this.waiting.get(pending.planId)?.pending === pending) this.waiting.delete(pending.planId);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        done();
      };
      // Stopping answers nothing: the ask stays in the store for the run that takes over (or expires).
      const onAbort = () => finish(() => reject(aborted()));
      const poll = async () => {
        try {
          const now = await this.options.store.getAsk(record.id);
          if (now?.answer) return finish(() => resolve(fromStored(now.answer!)));
          if (this.options.now() >= Date.parse(record.expiresAt)) return finish(() => resolve(expired(record)));
        } catch {
          // A store that cannot be read now (closing, unreachable) is read again at the next tick.
        }
        if (!settled) timer = setTimeout(poll, this.options.pollMs);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(pending.planId, { pending, settle: (answer) => finish(() => resolve(answer)) });
      timer = setTimeout(poll, this.options.pollMs);
      const { handler } = this.options;
      if (!handler) return;
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
    });
  }

  /**
   * Answers a plan a run of this runtime waits on (the handler's answer); false when none here
   * waits on it. The store decides: when another answer landed first, the run takes that one.
   */
  reply(planId: string, answer: PlanApprovalAnswer): boolean {
    const waiter = this.waiting.get(planId);
    if (!waiter) return false;
    this.waiting.delete(planId);
    const value = answerValue(answer);
    const at = new Date(this.options.now()).toISOString();
    this.options.store.answerAsk(waiter.pending.askId, { value: { ...value }, at }).then(
      () => waiter.settle(value),
      async (err: unknown) => {
        const stored = await this.options.store.getAsk(waiter.pending.askId).catch(() => undefined);
        if (stored?.answer) return waiter.settle(fromStored(stored.answer));
        if (stored && isArborError(err, "ask_expired")) return waiter.settle(expired(stored));
        waiter.settle({ approved: false, reason: `the answer could not be recorded: ${String(err)}` });
      },
    );
    return true;
  }

  /**
   * Answers the plan's ask in the store, from whichever process, exactly once; a run of this runtime
   * waiting on it goes on at once (`waitedHere`), one elsewhere when it next reads the store. Throws
   * `ask_already_answered` or `ask_expired` having changed nothing.
   */
  async answer(record: AskRecord, answer: PlanApprovalAnswer, by?: string): Promise<{ record: AskRecord; waitedHere: boolean }> {
    const value = answerValue(answer);
    const answered = await this.options.store.answerAsk(record.id, {
      value: { ...value },
      at: new Date(this.options.now()).toISOString(),
      ...(by === undefined ? {} : { by }),
    });
    const planId = pendingPlanOf(record).planId;
    const waiter = this.waiting.get(planId);
    waiter?.settle(value);
    return { record: answered, waitedHere: waiter !== undefined };
  }

  /** The ask of a plan (its latest, should a plan have been asked twice), from this runtime or the store. */
  async find(planId: string): Promise<AskRecord | undefined> {
    const here = this.waiting.get(planId);
    if (here) return this.options.store.getAsk(here.pending.askId);
    const asks = await this.options.store.listAsks({ sessionId: sessionOfPlan(planId), kind: "plan" });
    return asks.filter((r) => pendingPlanOf(r).planId === planId).at(-1);
  }

  /** Unanswered, unexpired plans of every process over the store, oldest first; one session's when given. */
  async listAll(sessionId?: string): Promise<PendingPlanApproval[]> {
    const records = await this.options.store.listAsks({
      unanswered: true,
      kind: "plan",
      ...(sessionId === undefined ? {} : { sessionId }),
    });
    const now = this.options.now();
    return records.filter((r) => Date.parse(r.expiresAt) > now).map(pendingPlanOf);
  }

  /** Plans runs of this runtime wait on, oldest first; only one session's when given. */
  list(sessionId?: string): PlanApprovalRequest[] {
    const all = [...this.waiting.values()].map(({ pending: { askId: _, expiresAt: __, ...request } }) => request);
    return sessionId === undefined ? all : all.filter((r) => r.sessionId === sessionId);
  }
}
