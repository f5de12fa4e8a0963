import { randomUUID } from "node:crypto";
import { ArborError } from "../errors.js";
import type { AskRecord } from "../store/asks.js";
import type { Store } from "../store/store.js";

/** A function the client of a run defines (an OpenAI client's function tool): the model calls it, the client runs it. */
export interface ClientFunction {
  name: string;
  description?: string;
  /** The JSON Schema of its arguments, as the client gave it. */
  parameters?: Record<string, unknown>;
}

/** A call of a client function waiting for the client's output, as every process over the store lists it. */
export interface PendingFunctionCall {
  /** The ask's id. */
  id: string;
  sessionId: string;
  callId: string;
  name: string;
  /** Every client function of the run that made the call, so a run taken up elsewhere offers them again. */
  functions: ClientFunction[];
}

export interface ClientFunctionAsksOptions {
  store: Store;
  /** Milliseconds since the epoch: when a call is asked, answered, and expires. */
  now(): number;
  ttlMs: number;
  /** How often a waiting run reads its call's ask from the store, for an output given in another process. */
  pollMs: number;
}

/**
 * How long a call waits for the client's output at most (less when the runtime's asks expire sooner):
 * the run holds its session meanwhile, and a client that went away should not keep it busy for a day.
 */
export const CLIENT_WAIT_MS = 10 * 60_000;

/** Why the run stopped waiting: the client's output, or none (aborted; expired says so to the model). */
export type FunctionWait = { output: string } | { aborted: true };

const pendingOf = (record: AskRecord): PendingFunctionCall => record.request as unknown as PendingFunctionCall;

/**
 * Calls of client functions, kept in the store as asks of kind `function` (like questions, see
 * `QuestionAsks`): the run waits on its call's record, the client's output is recorded on it from any
 * process exactly once, and a run cut off (a crash, a restart) is taken up by a run that waits on the
 * same record, so an output given on another instance or after a restart still reaches the model.
 */
export { pendingOf as pendingFunctionCallOf };

export class ClientFunctionAsks {
  private readonly waiting = new Map<string, (wait: FunctionWait) => void>();

  constructor(private readonly options: ClientFunctionAsksOptions) {}

  /**
   * Records the call (or finds the one a cut-off run of the same call made) and resolves with the
   * client's output; `onWaiting` runs once the record is there, so a client told of the call can answer at once.
   */
  async wait(
    call: Omit<PendingFunctionCall, "id">,
    signal: AbortSignal,
    onWaiting: (pending: PendingFunctionCall) => void,
  ): Promise<FunctionWait> {
    if (signal.aborted) return { aborted: true };
    const record = (await this.find(call.sessionId, call.callId)) ?? (await this.record(call));
    if (record.answer) return { output: String(record.answer.value.output ?? "") };
    if (this.options.now() >= Date.parse(record.expiresAt)) return { output: expiredOutput(record) };
    return new Promise<FunctionWait>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const finish = (wait: FunctionWait) => {
        if (settled) return;
        settled = true;
        this.waiting.delete(record.id);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(wait);
      };
      // Stopping answers nothing: the call stays in the store for the run that takes it up.
      const onAbort = () => finish({ aborted: true });
      const poll = async () => {
        try {
          const now = await this.options.store.getAsk(record.id);
          if (now?.answer) return finish({ output: String(now.answer.value.output ?? "") });
          if (this.options.now() >= Date.parse(record.expiresAt)) return finish({ output: expiredOutput(record) });
        } catch {
          // A store that cannot be read now is read again at the next tick.
        }
        if (!settled) timer = setTimeout(poll, this.options.pollMs);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(record.id, finish);
      timer = setTimeout(poll, this.options.pollMs);
      onWaiting(pendingOf(record));
    });
  }

  /**
   * Records the client's output on the call, from whichever process, exactly once; a run of this
   * runtime waiting on it goes on at once (`waitedHere`). Throws `ask_not_found`,
   * `ask_already_answered` or `ask_expired`, having changed nothing.
   */
  async answer(id: string, output: string, by?: string): Promise<{ record: AskRecord; waitedHere: boolean }> {
    const current = await this.options.store.getAsk(id);
    if (current && current.kind !== "function") {
      throw new ArborError("invalid_input", `Ask ${id} is a ${current.kind} ask, not a function call: answer it as one.`);
    }
    const record = await this.options.store.answerAsk(id, {
      value: { output },
      at: new Date(this.options.now()).toISOString(),
      ...(by === undefined ? {} : { by }),
    });
    const settle = this.waiting.get(id);
    settle?.({ output });
    return { record, waitedHere: settle !== undefined };
  }

  /** The call's ask, answered or not; undefined when the call never waited. */
  async find(sessionId: string, callId: string): Promise<AskRecord | undefined> {
    const mine = await this.options.store.listAsks({ sessionId, kind: "function" });
    return mine.find((r) => r.callId === callId);
  }

  /** Unanswered, unexpired calls of the session in every process over the store, oldest first. */
  async listAll(sessionId: string): Promise<PendingFunctionCall[]> {
    const records = await this.options.store.listAsks({ sessionId, kind: "function", unanswered: true });
    const now = this.options.now();
    return records.filter((r) => Date.parse(r.expiresAt) > now).map(pendingOf);
  }

  /**
   * The client functions kept with the session's calls that have no result on its active path (a run
   * cut off while they waited): what a woken run offers again, so those calls wait on their asks.
   */
  async openFunctions(sessionId: string): Promise<ClientFunction[]> {
    const records = await this.options.store.listAsks({ sessionId, kind: "function" });
    if (records.length === 0) return [];
    const answered = new Set<string>();
    for (const entry of await this.options.store.getActivePath(sessionId)) {
      if (entry.type !== "message" || entry.message.role !== "tool") continue;
      for (const part of entry.message.content) if (part.type === "tool-result") answered.add(part.toolCallId);
    }
    const open = records.filter((r) => r.callId !== undefined && !answered.has(r.callId));
    return open.at(-1) ? pendingOf(open.at(-1) as AskRecord).functions : [];
  }

  private record(call: Omit<PendingFunctionCall, "id">): Promise<AskRecord> {
    const id = `function_${randomUUID()}`;
    const now = this.options.now();
    return this.options.store.createAsk({
      id,
      kind: "function",
      sessionId: call.sessionId,
      callId: call.callId,
      request: { id, ...call } as unknown as Record<string, unknown>,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.ttlMs).toISOString(),
    });
  }
}

function expiredOutput(record: AskRecord): string {
  return `The client gave no output for this call before it expired at ${record.expiresAt}.`;
}
