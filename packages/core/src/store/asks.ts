import { z } from "zod";
import { ArborError } from "../errors.js";

/**
 * An ask: something a run waits on a person for, kept in the store so every process over it lists
 * and answers it, and a run resumed after its process died waits on the same record. `kind` tells
 * what `request` and an answer's `value` hold: a permission ask (`request` a `PendingPermission`,
 * `value` `{ reply, message?, scope? }`) or a plan waiting for approval (`request` a
 * `PlanApprovalRequest`, `value` `{ approved, reason? }`), or a call of a client's function waiting
 * for the client's output (`request` a `PendingFunctionCall`, `value` `{ output }`), or an MCP
 * server's login (`request` a `PendingMcpLogin`, `value` an `McpLoginAnswer`). All are stored as JSON, so a kind is
 * added without a schema change (MCP elicitations can follow).
 */
export const AskKindSchema = z.enum(["permission", "plan", "elicitation", "question", "function", "mcp_login"]);
export type AskKind = z.infer<typeof AskKindSchema>;

export const AskAnswerSchema = z.object({
  /** What was answered; its shape is the kind's (a permission answer: `{ reply, message?, scope? }`). */
  value: z.record(z.string(), z.unknown()),
  /** ISO-8601; an answer after `expiresAt` is refused with `ask_expired`. */
  at: z.string(),
  /** Who answered, when the front door knows (see `principal`). */
  by: z.string().optional(),
});
export type AskAnswer = z.infer<typeof AskAnswerSchema>;

export const AskInputSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
  kind: AskKindSchema,
  sessionId: z.string().min(1),
  /** The run that asked, when it has an id. */
  runId: z.string().optional(),
  /** The tool call that asked: a resumed run that makes the same call waits on the same ask. */
  callId: z.string().optional(),
  /**
   * Who may answer. There are no principals yet, so nothing checks it: any caller of `runtime.asks`
   * may answer. Kept so records written now carry it when principals arrive.
   */
  principal: z.string().optional(),
  request: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  /** ISO-8601. After it the ask is expired: answering it throws `ask_expired`, and the run waiting on it is refused. */
  expiresAt: z.string(),
});
export type AskInput = z.infer<typeof AskInputSchema>;

export const AskRecordSchema = AskInputSchema.extend({ answer: AskAnswerSchema.optional() });
export type AskRecord = z.infer<typeof AskRecordSchema>;

export interface ListAsksOptions {
  /** Only this session's asks. */
  sessionId?: string;
  /** Only asks with no answer yet (expired ones included: the caller's clock decides). */
  unanswered?: boolean;
  /** Only asks of this kind. */
  kind?: AskKind;
}

function parseAskInput(input: AskInput): AskInput {
  const parsed = AskInputSchema.safeParse(input);
  if (!parsed.success) throw new ArborError("invalid_input", `The ask is not valid: ${parsed.error.message}`);
  return parsed.data;
}

function parseAskAnswer(answer: AskAnswer): AskAnswer {
  const parsed = AskAnswerSchema.safeParse(answer);
  if (!parsed.success) throw new ArborError("invalid_input", `The answer is not valid: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * An ask as a store kept it: the JSON of what was asked and, once answered, of its answer. Damage is
 * `corrupt_session`, naming `where` the ask was read (its folder, its table) so it can be found and mended.
 */
export function storedAsk(askJson: string, answerJson: string | undefined, where: string): AskRecord {
  const ask = parseStored(askJson, AskInputSchema, `Stored ask (${where})`);
  if (answerJson === undefined) return ask;
  return { ...ask, answer: parseStored(answerJson, AskAnswerSchema, `Stored answer of ask ${ask.id} (${where})`) };
}

function parseStored<T>(json: string, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ArborError("corrupt_session", `${what} is not valid JSON.`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ArborError("corrupt_session", `${what} is not valid: ${parsed.error.message}`);
  return parsed.data;
}

export function askNotFound(id: string): ArborError {
  return new ArborError("ask_not_found", `No ask ${id}: it was never asked, or its session was deleted.`);
}

/**
 * Why `answer` may not be recorded on `current` (the compare half of an answer's compare-and-set),
 * or undefined when it may. An answer at or after the expiry is refused.
 */
function answerRefusal(id: string, current: AskRecord | undefined, answer: AskAnswer): ArborError | undefined {
  if (!current) return askNotFound(id);
  if (current.answer) {
    return new ArborError("ask_already_answered", `Ask ${id} was answered already (at ${current.answer.at}); nothing changed.`, {
      answer: current.answer,
    });
  }
  if (Date.parse(answer.at) >= Date.parse(current.expiresAt)) {
    return new ArborError("ask_expired", `Ask ${id} expired at ${current.expiresAt} unanswered; its run was refused.`);
  }
  return undefined;
}

/**
 * Every store's asks, over where its backend keeps them: each ask and each answer written whole and
 * only where there is none, the set half of the compare-and-set that lets exactly one of two racing
 * answers (or asks under one id) land.
 */
export abstract class AskBook {
  /** The ask as kept, with its answer when it has one. */
  abstract get(id: string): AskRecord | undefined | Promise<AskRecord | undefined>;
  /** The asks a listing is chosen from: at least those `opts` asks for, in any order. */
  protected abstract candidates(opts: ListAsksOptions | undefined): AskRecord[] | Promise<AskRecord[]>;
  /** Keeps what is asked; false when an ask with its id is kept already. */
  protected abstract putAsk(ask: AskInput): boolean | Promise<boolean>;
  /** Keeps the answer; false when the ask has one already (another got there first). */
  protected abstract putAnswer(id: string, answer: AskAnswer): boolean | Promise<boolean>;

  /** `Store.createAsk`. */
  async create(input: AskInput): Promise<AskRecord> {
    const ask = parseAskInput(input);
    if (!(await this.putAsk(ask))) throw new ArborError("invalid_input", `An ask with id ${ask.id} exists already.`);
    return { ...ask };
  }

  /** `Store.listAsks`. */
  async list(opts?: ListAsksOptions): Promise<AskRecord[]> {
    return listing(await this.candidates(opts), opts);
  }

  /**
   * `Store.answerAsk`: exactly once, refused having changed nothing when there is no such ask, it
   * has an answer, or it expired; a racing answer that landed first wins.
   */
  async answer(id: string, input: AskAnswer): Promise<AskRecord> {
    const answer = parseAskAnswer(input);
    const current = await this.get(id);
    const refusal = answerRefusal(id, current, answer);
    if (refusal) throw refusal;
    if (!(await this.putAnswer(id, answer))) {
      throw answerRefusal(id, await this.get(id), answer) ?? new ArborError("io_error", `Ask ${id} could not be answered.`);
    }
    return { ...current!, answer };
  }
}

/** What a listing returns of `records`: those `opts` asks for, in the order every backend lists in. */
function listing(records: readonly (AskRecord | undefined)[], opts: ListAsksOptions | undefined): AskRecord[] {
  return records.filter((r): r is AskRecord => r !== undefined && matchesListing(r, opts)).sort(byCreation);
}

function matchesListing(record: AskRecord, opts: ListAsksOptions | undefined): boolean {
  if (opts?.sessionId !== undefined && record.sessionId !== opts.sessionId) return false;
  if (opts?.unanswered && record.answer) return false;
  if (opts?.kind !== undefined && record.kind !== opts.kind) return false;
  return true;
}

/** Oldest first, then by id, so every backend lists in the same order. */
function byCreation(a: AskRecord, b: AskRecord): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
