import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import {
  type AskAnswer,
  type AskInput,
  type AskRecord,
  answerRefusal,
  type ListAsksOptions,
  listing,
  parseAskAnswer,
  parseAskInput,
  storedAsk,
} from "../asks.js";
import type { ArborDatabase, AsksTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

function fromRow(row: Pick<AsksTable, "id" | "data" | "answer">): AskRecord {
  return storedAsk(row.data, row.answer ?? undefined, `${row.id} in arbor_asks`);
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
  const row = await db.selectFrom("arbor_asks").select(["id", "data", "answer"]).where("id", "=", id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export async function listAskRows(db: Db, opts?: ListAsksOptions): Promise<AskRecord[]> {
  let query = db.selectFrom("arbor_asks").select(["id", "data", "answer"]);
  if (opts?.sessionId !== undefined) query = query.where("session_id", "=", opts.sessionId);
  if (opts?.unanswered) query = query.where("answer", "is", null);
  const rows = await query.orderBy("created_at").orderBy("id").execute();
  return listing(rows.map(fromRow), opts);
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
