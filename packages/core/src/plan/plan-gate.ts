import { ArborError } from "../errors.js";

/** A plan waiting for a person, as `plan_approval_request` showed it. */
export interface PlanApprovalRequest {
  planId: string;
  sessionId: string;
  title: string;
  steps: { id: number; title: string; status: string }[];
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

interface Waiter {
  request: PlanApprovalRequest;
  resolve(answer: PlanApprovalAnswer): void;
}

/**
 * The plans runs of this runtime wait on, by plan id. Owned by one runtime; a waiter lives only
 * while its run does (the durable side is the session's `arbor.plan` record).
 */
export class PlanGate {
  private readonly waiting = new Map<string, Waiter>();

  constructor(private readonly handler?: PlanApprovalHandler) {}

  /**
   * Registers the request at once (so an answer that races the event still finds it), asks the
   * handler if there is one, and resolves with the answer; rejects with `aborted` when `signal` fires.
   */
  wait(request: PlanApprovalRequest, signal: AbortSignal): Promise<PlanApprovalAnswer> {
    return new Promise<PlanApprovalAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(new ArborError("aborted", "The run was aborted while its plan waited for approval."));
      const onAbort = () => {
        this.waiting.delete(request.planId);
        reject(new ArborError("aborted", "The run was aborted while its plan waited for approval."));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(request.planId, {
        request,
        resolve: (answer) => {
          signal.removeEventListener("abort", onAbort);
          this.waiting.delete(request.planId);
          resolve(answer);
        },
      });
      if (!this.handler) return;
      Promise.resolve()
        .then(() => this.handler?.(request, signal))
        .then(
          (answer) => {
            if (answer) this.answer(request.planId, answer);
          },
          (err: unknown) =>
            this.answer(request.planId, {
              approved: false,
              reason: `The approval prompt failed: ${err instanceof Error ? err.message : String(err)}`,
            }),
        );
    });
  }

  /** Answers a waiting plan; false when no run of this runtime waits for it. */
  answer(planId: string, answer: PlanApprovalAnswer): boolean {
    const waiter = this.waiting.get(planId);
    if (!waiter) return false;
    waiter.resolve(answer);
    return true;
  }

  /** Plans waiting in this runtime, oldest first; only one session's when given. */
  list(sessionId?: string): PlanApprovalRequest[] {
    const all = [...this.waiting.values()].map((w) => w.request);
    return sessionId === undefined ? all : all.filter((r) => r.sessionId === sessionId);
  }
}
