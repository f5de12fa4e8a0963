import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import {
  type AskAnswer,
  AskAnswerSchema,
  type AskInput,
  AskInputSchema,
  type AskRecord,
  answerRefusal,
  byCreation,
  type ListAsksOptions,
  matchesListing,
  parseAskAnswer,
  parseAskInput,
} from "../asks.js";
import type { ArborDatabase, AsksTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

function fromRow(row: Pick<AsksTable, "data" | "answer">): AskRecord {
  const ask = AskInputSchema.safeParse(JSON.parse(row.data));
  if (!ask.success) throw new ArborError("corrupt_session", "An ask row does not hold an ask.");
  if (row.answer === null) return ask.data;
  const answer = AskAnswerSchema.safeParse(JSON.parse(row.answer));
  if (!answer.success) throw new ArborError("corrupt_session", `The answer of ask ${ask.data.id} is not one.`);
  return { ...ask.data, answer: answer.data };
}

export async function insertAsk(db: Db, input: AskInput): Promise<AskRecord> {
  const ask = parseAskInput(input);
  if (await readAsk(db, ask.id)) throw new ArborError("invalid_input", `An ask with id ${ask.id} exists already.`);
  await db
    .insertInto("arbor_asks")
    .values({ id: ask.id, session_id: ask.sessionId, created_at: ask.createdAt, data: JSON.stringify(ask), answer: null })
    .execute();
  return ask;
}

export async function readAsk(db: Db, id: string): Promise<AskRecord | undefined> {
  const row = await db.selectFrom("arbor_asks").select(["data", "answer"]).where("id", "=", id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export async function listAskRows(db: Db, opts?: ListAsksOptions): Promise<AskRecord[]> {
  let query = db.selectFrom("arbor_asks").select(["data", "answer"]);
  if (opts?.sessionId !== undefined) query = query.where("session_id", "=", opts.sessionId);
  if (opts?.unanswered) query = query.where("answer", "is", null);
  const rows = await query.orderBy("created_at").orderBy("id").execute();
  return rows
    .map(fromRow)
    .filter((r) => matchesListing(r, opts))
    .sort(byCreation);
}

/** The compare-and-set: the update only matches a row with no answer, so of two racing answers one lands. */
export async function answerAskRow(db: Db, id: string, input: AskAnswer): Promise<AskRecord> {
  const answer = parseAskAnswer(input);
  const current = await readAsk(db, id);
  const refusal = answerRefusal(id, current, answer);
  if (refusal) throw refusal;
  const result = await db
    .updateTable("arbor_asks")
    .set({ answer: JSON.stringify(answer) })
    .where("id", "=", id)
    .where("answer", "is", null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) {
    throw answerRefusal(id, await readAsk(db, id), answer) ?? new ArborError("io_error", `Ask ${id} could not be answered.`);
  }
  return { ...current!, answer };
}
