import { type AskHandler, DurableAskBase, type DurableAskOptions, requestOf, type WaitEnds } from "../asks/durable-wait.js";
import { isArborError } from "../errors.js";
import type { AskAnswer, AskRecord } from "../store/asks.js";
import { checkAnswer, type PendingQuestion, type QuestionAnswer, type QuestionInput } from "./question-schema.js";

/**
 * How questions are answered when the runtime has someone to ask (a terminal prompt). Returning
 * undefined leaves the question waiting for `runtime.asks.answerQuestion` (a route, another process).
 */
export type QuestionHandler = AskHandler<PendingQuestion, QuestionAnswer>;

export interface QuestionAsksOptions extends DurableAskOptions {
  handler?: QuestionHandler;
}

/** Why the run stopped waiting without an answer: it was aborted (nobody answered) or the question expired. */
export type QuestionWait = QuestionAnswer | { aborted: true };

/** What makes two questions the same question: their words and choices, not who asked or when. */
function sameWords(q: QuestionInput): string {
  return JSON.stringify([q.question, q.header ?? null, q.options ?? null, q.multiple ?? false, q.custom ?? true]);
}

export function pendingQuestionOf(record: AskRecord): PendingQuestion {
  return requestOf(record);
}

function fromStored(answer: AskAnswer): QuestionAnswer {
  return answer.value as unknown as QuestionAnswer;
}

function expired(record: AskRecord): QuestionAnswer {
  return { dismissed: true, message: `nobody answered the question before it expired at ${record.expiresAt}` };
}

/** Stopping answers nothing: the question stays in the store for a resumed run (or expires). */
const ENDS: WaitEnds<QuestionWait> = { answered: fromStored, expired, aborted: () => ({ aborted: true }) };

/**
 * Questions the `question` tool asks, kept in the store as asks of kind `question` (like permission
 * asks, see `PendingPermissions`): every process over the store lists and answers them, exactly once.
 * A run waits on its question's record; a run cut off leaves it unanswered, and the same call of the
 * resumed run waits on the same record (taking an answer given meanwhile).
 */
export class QuestionAsks extends DurableAskBase<PendingQuestion, QuestionWait, QuestionAsksOptions> {
  protected readonly kind = "question";

  /**
   * Records the question (or finds the one this call asked before) and resolves with its answer;
   * `onCreated` sees it first. `taken` are the asks whose answers the session's model has read: an
   * answered question not among them, asked in the same words, is the one a run stopped waiting on
   * (`arbor run` with no terminal), answered afterwards, and the model reads that answer now.
   */
  async wait(
    question: Omit<PendingQuestion, "id">,
    signal: AbortSignal,
    onCreated: (pending: PendingQuestion) => void,
    taken: ReadonlySet<string> = new Set(),
  ): Promise<{ askId?: string; result: QuestionWait }> {
    if (signal.aborted) return { result: { aborted: true } };
    const record = (await this.earlier(question, taken)) ?? (await this.recordCall(question));
    const result = await this.waitOnRecord(record, signal, ENDS, (pending) => {
      onCreated(pending);
      this.offer(record, pending, signal);
    });
    return { askId: record.id, result };
  }

  /** Hands the question to someone at hand (`handler`); one who cannot show it dismisses it. */
  private offer(record: AskRecord, pending: PendingQuestion, signal: AbortSignal): void {
    const { handler } = this.options;
    if (!handler) return;
    Promise.resolve()
      .then(() => handler(pending, signal))
      .then(
        (answer) => (answer ? this.answer(record.id, answer) : undefined),
        (err: unknown) =>
          this.answer(record.id, {
            dismissed: true,
            message: `the question could not be shown: ${err instanceof Error ? err.message : String(err)}`,
          }),
      )
      .catch(async (err: unknown) => {
        // Answered elsewhere first, or expired: the run takes what the store says.
        const stored = await this.options.store.getAsk(record.id).catch(() => undefined);
        if (stored?.answer) return this.waiters.settle(record.id, fromStored(stored.answer));
        if (stored && isArborError(err, "ask_expired")) return this.waiters.settle(record.id, expired(stored));
        if (!isArborError(err))
          this.waiters.settle(record.id, { dismissed: true, message: `the answer could not be recorded: ${String(err)}` });
      });
  }

  /**
   * Answers a question in the store, from whichever process, exactly once; a run of this runtime
   * waiting on it goes on at once. Throws `ask_not_found`, `invalid_input` (an answer the question
   * does not take), `ask_already_answered` or `ask_expired`, having changed nothing.
   */
  async answer(id: string, answer: QuestionAnswer, by?: string): Promise<AskRecord> {
    const current = await this.options.store.getAsk(id);
    const value = current?.kind === "question" ? checkAnswer(pendingQuestionOf(current), answer) : answer;
    return (await this.waiters.answer(id, value, by)).record;
  }

  /** Unanswered, unexpired questions of every process over the store, oldest first. */
  async listAll(sessionId?: string): Promise<PendingQuestion[]> {
    return (await this.openRecords(sessionId)).map(pendingQuestionOf);
  }

  /** The questions runs of this runtime wait on now; only one session's when given. */
  list(sessionId?: string): PendingQuestion[] {
    const all = this.waiters.pendings();
    return sessionId === undefined ? all : all.filter((q) => q.sessionId === sessionId);
  }

  /** The question the same call asked before (its run cut off), which a resumed run waits on again. */
  private async earlier(question: Omit<PendingQuestion, "id">, taken: ReadonlySet<string>): Promise<AskRecord | undefined> {
    const mine = await this.options.store.listAsks({ sessionId: question.sessionId, kind: "question" });
    const same = mine.find((r) => question.callId !== undefined && r.callId === question.callId);
    if (same) return same;
    const words = sameWords(question);
    // Only a real answer carries over: a dismissal reached nobody, and must not dismiss every later asking.
    return mine.find(
      (r) => r.answer && "answers" in r.answer.value && !taken.has(r.id) && sameWords(pendingQuestionOf(r)) === words,
    );
  }
}

export type { QuestionInput };
