import { DurableAskBase, type DurableAskOptions, requestOf, type WaitEnds } from "../asks/durable-wait.js";
import type { AskAnswer, AskRecord } from "../store/asks.js";
import type { ApprovalScope } from "./approvals.js";
import type { PermissionReply, PermissionRequest } from "./ask.js";

export interface PermissionAnswer {
  reply: PermissionReply;
  /** What the person said with a rejection; the model reads it. */
  message?: string;
  /** Where an "always" answer holds (default: the session). */
  scope?: ApprovalScope;
}

/** A permission ask waiting for an answer (`runtime.replyPermission`, `runtime.asks.answer`). */
export interface PendingPermission {
  id: string;
  sessionId: string;
  agent: string;
  tool?: string;
  callId?: string;
  request: PermissionRequest;
}

/**
 * How asks are answered when the runtime has someone to ask (a CLI prompt, `--yes`). Returning
 * undefined leaves the ask pending for `runtime.replyPermission` (the server's route).
 */
export type PermissionHandler = (
  pending: PendingPermission,
  signal: AbortSignal,
) => PermissionReply | PermissionAnswer | undefined | Promise<PermissionReply | PermissionAnswer | undefined>;

/** Kept and waited on like every durable ask (see `AskWaiters`). */
export type PendingPermissionsOptions = DurableAskOptions;

/** An ask expired unanswered is refused, and the model is told why. */
function expired(record: AskRecord): PermissionAnswer {
  return { reply: "reject", message: `nobody answered the ask before it expired at ${record.expiresAt}` };
}

function answerValue(reply: PermissionReply, message?: string, scope?: ApprovalScope): PermissionAnswer {
  return {
    reply,
    ...(message === undefined ? {} : { message }),
    ...(scope === undefined || reply !== "always" ? {} : { scope }),
  };
}

function fromStored(answer: AskAnswer): PermissionAnswer {
  const { reply, message, scope } = answer.value as { reply: PermissionReply; message?: string; scope?: ApprovalScope };
  return answerValue(reply, message, scope);
}

function pendingOf(record: AskRecord): PendingPermission {
  return requestOf(record);
}

/** Stopping answers nothing: the ask stays in the store for a resumed run (or expires). */
const ENDS: WaitEnds<PermissionAnswer> = { answered: fromStored, expired, aborted: () => ({ reply: "reject" }) };

/**
 * Permission asks, kept in the store (see `Store.createAsk`): every process over the store lists
 * and answers them, exactly once (the store's compare-and-set decides which answer counts). A run
 * waits here on its ask: an answer given in this process settles it at once, one given elsewhere
 * when the run next reads the store (`pollMs`). A run that stops (aborted, its process closed or
 * killed) leaves its ask in the store unanswered: the same tool call of a resumed run waits on the
 * same record, and takes an answer given meanwhile.
 */
export class PendingPermissions extends DurableAskBase<PendingPermission, PermissionAnswer, PendingPermissionsOptions> {
  protected readonly kind = "permission";

  /** Records the ask (or finds the one this call made before) and resolves with its answer; `onCreated` sees it first. */
  async wait(
    request: Omit<PendingPermission, "id">,
    signal: AbortSignal,
    onCreated: (pending: PendingPermission) => void,
  ): Promise<PermissionAnswer> {
    if (signal.aborted) return { reply: "reject" };
    const record = (await this.earlier(request)) ?? (await this.recordCall(request));
    return this.waitOnRecord(record, signal, ENDS, onCreated);
  }

  /**
   * Answers an ask a run of this runtime waits on (a CLI prompt, a handler); false when none here
   * waits on `id`. The store decides: when another answer landed first, the run takes that one.
   */
  reply(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope): boolean {
    return this.waiters.reply(id, id, answerValue(reply, message, scope), ENDS, (err) => ({
      reply: "reject",
      message: `the answer could not be recorded: ${String(err)}`,
    }));
  }

  /**
   * Answers any ask in the store, from whichever process; throws `ask_not_found`,
   * `ask_already_answered` or `ask_expired` having changed nothing. A run waiting here goes on at once.
   */
  async answer(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope, by?: string): Promise<AskRecord> {
    return (await this.waiters.answer(id, answerValue(reply, message, scope), by)).record;
  }

  /** Unanswered, unexpired permission asks of every process over the store, oldest first. */
  async listAll(sessionId?: string): Promise<PendingPermission[]> {
    return (await this.openRecords(sessionId)).map(pendingOf);
  }

  /** The asks runs of this runtime wait on now. */
  list(sessionId?: string): PendingPermission[] {
    return this.waiters.pendings().filter((p) => sessionId === undefined || p.sessionId === sessionId);
  }

  /** The ask the same tool call made before (its run cut off), which a resumed run waits on again. */
  private async earlier(request: Omit<PendingPermission, "id">): Promise<AskRecord | undefined> {
    if (request.callId === undefined) return undefined;
    const mine = await this.options.store.listAsks({ sessionId: request.sessionId });
    const same = JSON.stringify(request.request);
    return mine.find(
      (r) => r.kind === "permission" && r.callId === request.callId && JSON.stringify(pendingOf(r).request) === same,
    );
  }
}
