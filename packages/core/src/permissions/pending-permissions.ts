import { randomUUID } from "node:crypto";
import { isArborError } from "../errors.js";
import type { AskAnswer, AskRecord } from "../store/asks.js";
import type { Store } from "../store/store.js";
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

export interface PendingPermissionsOptions {
  store: Store;
  /** Milliseconds since the epoch: when an ask is made, answered, and expires. */
  now(): number;
  /** How long an ask waits for an answer before it expires (refused). */
  ttlMs: number;
  /** How often a waiting run reads its ask from the store, for an answer given in another process. */
  pollMs: number;
}

interface Waiting {
  pending: PendingPermission;
  /** Settles the wait with the ask's one answer (the store's, whoever gave it). */
  settle(answer: PermissionAnswer): void;
}

export const DEFAULT_ASK_TTL_MS = 24 * 3_600_000;
export const DEFAULT_ASK_POLL_MS = 250;

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
  return record.request as unknown as PendingPermission;
}

/**
 * Permission asks, kept in the store (see `Store.createAsk`): every process over the store lists
 * and answers them, exactly once (the store's compare-and-set decides which answer counts). A run
 * waits here on its ask: an answer given in this process settles it at once, one given elsewhere
 * when the run next reads the store (`pollMs`). A run that stops (aborted, its process closed or
 * killed) leaves its ask in the store unanswered: the same tool call of a resumed run waits on the
 * same record, and takes an answer given meanwhile.
 */
export class PendingPermissions {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly options: PendingPermissionsOptions) {}

  /** Records the ask (or finds the one this call made before) and resolves with its answer; `onCreated` sees it first. */
  async wait(
    request: Omit<PendingPermission, "id">,
    signal: AbortSignal,
    onCreated: (pending: PendingPermission) => void,
  ): Promise<PermissionAnswer> {
    if (signal.aborted) return { reply: "reject" };
    const record = (await this.earlier(request)) ?? (await this.record(request));
    const pending = pendingOf(record);
    if (record.answer) return fromStored(record.answer);
    return new Promise<PermissionAnswer>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const finish = (answer: PermissionAnswer) => {
        if (settled) return;
        settled = true;
        if (this.waiting.get(record.id)?.pending === pending) this.waiting.delete(record.id);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      };
      // Stopping answers nothing: the ask stays in the store for a resumed run (or expires).
      const onAbort = () => finish({ reply: "reject" });
      const poll = async () => {
        try {
          const now = await this.options.store.getAsk(record.id);
          if (now?.answer) return finish(fromStored(now.answer));
          if (this.options.now() >= Date.parse(record.expiresAt)) return finish(expired(record));
        } catch {
          // A store that cannot be read now (closing, unreachable) is read again at the next tick.
        }
        if (!settled && this.waiting.has(record.id)) timer = setTimeout(poll, this.options.pollMs);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(record.id, { pending, settle: finish });
      timer = setTimeout(poll, this.options.pollMs);
      onCreated(pending);
    });
  }

  /**
   * Answers an ask a run of this runtime waits on (a CLI prompt, a handler); false when none here
   * waits on `id`. The store decides: when another answer landed first, the run takes that one.
   */
  reply(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    // No longer waiting here: a second reply finds nothing, whatever the store says of the first.
    this.waiting.delete(id);
    const answer = answerValue(reply, message, scope);
    this.options.store.answerAsk(id, { value: { ...answer }, at: new Date(this.options.now()).toISOString() }).then(
      () => waiting.settle(answer),
      async (err: unknown) => {
        const stored = await this.options.store.getAsk(id).catch(() => undefined);
        if (stored?.answer) return waiting.settle(fromStored(stored.answer));
        if (stored && isArborError(err, "ask_expired")) return waiting.settle(expired(stored));
        // The store cannot take the answer: the run is refused rather than left waiting on it.
        waiting.settle({ reply: "reject", message: `the answer could not be recorded: ${String(err)}` });
      },
    );
    return true;
  }

  /**
   * Answers any ask in the store, from whichever process; throws `ask_not_found`,
   * `ask_already_answered` or `ask_expired` having changed nothing. A run waiting here goes on at once.
   */
  async answer(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope, by?: string): Promise<AskRecord> {
    const answer = answerValue(reply, message, scope);
    const record = await this.options.store.answerAsk(id, {
      value: { ...answer },
      at: new Date(this.options.now()).toISOString(),
      ...(by === undefined ? {} : { by }),
    });
    this.waiting.get(id)?.settle(answer);
    return record;
  }

  /** Unanswered, unexpired permission asks of every process over the store, oldest first. */
  async listAll(sessionId?: string): Promise<PendingPermission[]> {
    const records = await this.options.store.listAsks({ unanswered: true, ...(sessionId === undefined ? {} : { sessionId }) });
    const now = this.options.now();
    return records.filter((r) => r.kind === "permission" && Date.parse(r.expiresAt) > now).map(pendingOf);
  }

  /** The asks runs of this runtime wait on now. */
  list(sessionId?: string): PendingPermission[] {
    const out: PendingPermission[] = [];
    for (const { pending } of this.waiting.values()) {
      if (sessionId === undefined || pending.sessionId === sessionId) out.push(pending);
    }
    return out;
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

  private record(request: Omit<PendingPermission, "id">): Promise<AskRecord> {
    const id = `perm_${randomUUID()}`;
    const now = this.options.now();
    return this.options.store.createAsk({
      id,
      kind: "permission",
      sessionId: request.sessionId,
      ...(request.callId === undefined ? {} : { callId: request.callId }),
      request: { id, ...request } as unknown as Record<string, unknown>,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.ttlMs).toISOString(),
    });
  }
}
