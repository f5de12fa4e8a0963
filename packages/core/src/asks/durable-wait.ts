import { randomUUID } from "node:crypto";
import { isArborError } from "../errors.js";
import type { AskAnswer, AskInput, AskKind, AskRecord } from "../store/asks.js";
import type { Store } from "../store/store.js";

export const DEFAULT_ASK_TTL_MS = 24 * 3_600_000;
export const DEFAULT_ASK_POLL_MS = 250;

/** What every kind of durable ask (permission, plan, question, elicitation) is kept and waited on with. */
export interface DurableAskOptions {
  store: Store;
  /** Milliseconds since the epoch: when an ask is made, answered, and expires. */
  now(): number;
  /** How long an ask waits for an answer before it expires. */
  ttlMs: number;
  /** How often a waiting run reads its ask from the store, for an answer given in another process. */
  pollMs: number;
}

/**
 * How a kind of ask is answered when the runtime has someone to ask (a terminal prompt, `--yes`):
 * undefined leaves the ask waiting for an answer through `runtime.asks` (a route, another process).
 */
export type AskHandler<R, A> = (request: R, signal: AbortSignal) => A | undefined | Promise<A | undefined>;

/** How one kind of ask reads what ends a wait. `aborted` may throw: the wait then rejects with that error. */
export interface WaitEnds<A> {
  /** The answer a stored answer stands for. */
  answered(answer: AskAnswer): A;
  /** What an ask unanswered past its expiry stands for. */
  expired(record: AskRecord): A;
  /** What the wait ends with when its signal fires (called only if nothing ended it before). */
  aborted(): A;
}

interface Waiter<P, A> {
  pending: P;
  /** Settles the wait with the ask's one answer (the store's, whoever gave it). */
  settle(answer: A): void;
}

/** Records a new ask, expiring `ttlMs` from now. */
export function recordAsk(options: DurableAskOptions, ask: Omit<AskInput, "createdAt" | "expiresAt">): Promise<AskRecord> {
  const now = options.now();
  return options.store.createAsk({
    ...ask,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + options.ttlMs).toISOString(),
  });
}

/**
 * Records the ask a tool call makes, under `id`: its request carries the id (it is read back as the
 * pending ask), and the call's id is kept so that a resumed run finds the ask its call made.
 */
export function recordCallAsk(
  options: DurableAskOptions,
  kind: AskKind,
  id: string,
  request: { sessionId: string; callId?: string | undefined },
): Promise<AskRecord> {
  return recordAsk(options, {
    id,
    kind,
    sessionId: request.sessionId,
    ...(request.callId === undefined ? {} : { callId: request.callId }),
    request: { id, ...request } as unknown as Record<string, unknown>,
  });
}

/** Unanswered, unexpired asks of `kind` of every process over the store, oldest first; one session's when given. */
export async function openAsks(options: DurableAskOptions, kind: AskKind, sessionId?: string): Promise<AskRecord[]> {
  const records = await options.store.listAsks({ unanswered: true, kind, ...(sessionId === undefined ? {} : { sessionId }) });
  const now = options.now();
  return records.filter((r) => Date.parse(r.expiresAt) > now);
}

/** The answer as the store records it, at the clock's now, naming who gave it when known. */
export function storedAnswer(options: DurableAskOptions, value: object, by?: string): AskAnswer {
  return {
    value: { ...value } as AskAnswer["value"],
    at: new Date(options.now()).toISOString(),
    ...(by === undefined ? {} : { by }),
  };
}

/** The pending ask a record stands for: its request, which carries the ask's id (see `recordCallAsk`). */
export function requestOf<P>(record: AskRecord): P {
  return record.request as unknown as P;
}

/**
 * Hands the ask to someone at hand (`handler`), who answers like anyone else, through `answer` (the
 * store): an answer given elsewhere first wins, and the wait reads that one from the store, as it does
 * when the handler fails or its answer does not fit.
 */
export function offerToHandler<R, A>(
  handler: AskHandler<R, A> | undefined,
  request: R,
  signal: AbortSignal,
  answer: (value: A) => Promise<unknown>,
): void {
  if (!handler) return;
  Promise.resolve()
    .then(() => handler(request, signal))
    .then((value) => (value ? answer(value) : undefined))
    .catch(() => {});
}

/**
 * The asks runs of this process wait on, by a key of the kind's choosing (the ask's id, a plan's id).
 * A wait ends with the ask's one answer: given here (`settle`, at once) or in another process (read
 * from the store every `pollMs`), its expiry, or the run stopping. Stopping answers nothing: the ask
 * stays in the store for a resumed run, unless the kind closes it in `aborted`.
 */
export class AskWaiters<P, A> {
  private readonly waiting = new Map<string, Waiter<P, A>>();

  constructor(private readonly options: DurableAskOptions) {}

  /**
   * Waits on `record` under `key`. The waiter is registered before this returns, so an answer that
   * races the caller's next step (an event, a handler) finds it.
   */
  wait(key: string, record: AskRecord, pending: P, signal: AbortSignal, ends: WaitEnds<A>): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const finish = (end: () => A) => {
        if (settled) return;
        settled = true;
        if (this.waiting.get(key) === waiter) this.waiting.delete(key);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        try {
          resolve(end());
        } catch (err) {
          reject(err);
        }
      };
      const waiter: Waiter<P, A> = { pending, settle: (answer) => finish(() => answer) };
      const onAbort = () => finish(() => ends.aborted());
      const poll = async () => {
        try {
          const now = await this.options.store.getAsk(record.id);
          if (now?.answer) return finish(() => ends.answered(now.answer!));
          if (this.options.now() >= Date.parse(record.expiresAt)) return finish(() => ends.expired(record));
        } catch {
          // A store that cannot be read now (closing, unreachable) is read again at the next tick.
        }
        // A reply given here (`take`) settles the wait itself: reading the store again would race it.
        if (!settled && this.waiting.has(key)) timer = setTimeout(poll, this.options.pollMs);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(key, waiter);
      timer = setTimeout(poll, this.options.pollMs);
    });
  }

  /**
   * Answers the ask `askId` in the store, from whichever process, exactly once, and settles the wait
   * here under `key` (`waitedHere`); a run elsewhere takes the answer when it next reads the store.
   * Throws what the store throws (`ask_not_found`, `ask_already_answered`, `ask_expired`) having changed nothing.
   */
  async answer(askId: string, value: A & object, by?: string, key = askId): Promise<{ record: AskRecord; waitedHere: boolean }> {
    const record = await this.options.store.answerAsk(askId, storedAnswer(this.options, value, by));
    return { record, waitedHere: this.settle(key, value) };
  }

  /** Settles the wait under `key` with `answer`; false when none here waits on it. */
  settle(key: string, answer: A): boolean {
    const waiter = this.waiting.get(key);
    waiter?.settle(answer);
    return waiter !== undefined;
  }

  /** What the wait under `key` waits on, if one here does. */
  pendingOf(key: string): P | undefined {
    return this.waiting.get(key)?.pending;
  }

  /** Everything waited on here now, oldest first. */
  pendings(): P[] {
    return [...this.waiting.values()].map((w) => w.pending);
  }

  /**
   * Answers the ask a run here waits on under `key` (a prompt's, a handler's answer) with `value`;
   * false when none waits. No longer waiting here, so a second reply finds nothing. The store
   * decides: when another answer landed first, or the ask expired, the run takes what the store says;
   * when the store cannot take the answer, the run gets `failed` rather than waiting on.
   */
  reply(key: string, askId: string, value: A & object, ends: WaitEnds<A>, failed: (err: unknown) => A): boolean {
    const waiter = this.waiting.get(key);
    if (!waiter) return false;
    this.waiting.delete(key);
    this.options.store.answerAsk(askId, storedAnswer(this.options, value)).then(
      () => waiter.settle(value),
      async (err: unknown) => {
        const stored = await this.options.store.getAsk(askId).catch(() => undefined);
        if (stored?.answer) return waiter.settle(ends.answered(stored.answer));
        if (stored && isArborError(err, "ask_expired")) return waiter.settle(ends.expired(stored));
        waiter.settle(failed(err));
      },
    );
    return true;
  }
}

/** What the ids of each kind start with, so that an id says what it asks. */
const ID_PREFIX: Record<AskKind, string> = {
  permission: "perm",
  plan: "plan",
  elicitation: "elic",
  question: "question",
  function: "function",
  mcp_login: "login",
};

/**
 * What every kind of durable ask (permissions, plans, questions, MCP elicitations and logins) is
 * built on: its options, the waits of this process on its asks (keyed by the kind's choice), and
 * the records of its kind in the store.
 */
export abstract class DurableAskBase<P, A, O extends DurableAskOptions = DurableAskOptions> {
  protected readonly waiters: AskWaiters<P, A>;
  /** The kind of ask, as the store keeps it. */
  protected abstract readonly kind: AskKind;

  constructor(protected readonly options: O) {
    this.waiters = new AskWaiters(options);
  }

  protected newId(): string {
    return `${ID_PREFIX[this.kind]}_${randomUUID()}`;
  }

  /** Unanswered, unexpired asks of this kind of every process over the store, oldest first; one session's when given. */
  protected openRecords(sessionId?: string): Promise<AskRecord[]> {
    return openAsks(this.options, this.kind, sessionId);
  }

  /**
   * Waits on `record` under its id, as the pending ask its request is: an answer it has already, or
   * its expiry, ends the wait at once; else `onWaiting` hears of it once the waiter is registered,
   * so that an answer racing it finds the waiter.
   */
  protected waitOnRecord(record: AskRecord, signal: AbortSignal, ends: WaitEnds<A>, onWaiting: (pending: P) => void): Promise<A> {
    if (record.answer) return Promise.resolve(ends.answered(record.answer));
    if (this.options.now() >= Date.parse(record.expiresAt)) return Promise.resolve(ends.expired(record));
    const pending = requestOf<P>(record);
    const waited = this.waiters.wait(record.id, record, pending, signal, ends);
    onWaiting(pending);
    return waited;
  }

  /** Records the ask a tool call makes, under a new id (see `recordCallAsk`). */
  protected recordCall(request: { sessionId: string; callId?: string | undefined }): Promise<AskRecord> {
    return recordCallAsk(this.options, this.kind, this.newId(), request);
  }
}
