import type { Kysely } from "kysely";
import { type AskAnswer, AskBook, type AskInput, type AskRecord, type ListAsksOptions, storedAsk } from "../asks.js";
import type { ArborDatabase, AsksTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;

function fromRow(row: Pick<AsksTable, "id" | "data" | "answer">): AskRecord {
  return storedAsk(row.data, row.answer ?? undefined, `${row.id} in arbor_asks`);
}

/** The rows of `arbor_asks`: an answer is set only on a row without one, so of two racing answers one lands. */
export class SqlAsks extends AskBook {
  constructor(private readonly db: Db) {
    super();
  }

  async get(id: string): Promise<AskRecord | undefined> {
    const row = await this.db.selectFrom("arbor_asks").select(["id", "data", "answer"]).where("id", "=", id).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  protected async candidates(opts: ListAsksOptions | undefined): Promise<AskRecord[]> {
    let query = this.db.selectFrom("arbor_asks").select(["id", "data", "answer"]);
    if (opts?.sessionId !== undefined) query = query.where("session_id", "=", opts.sessionId);
    if (opts?.unanswered) query = query.where("answer", "is", null);
    return (await query.execute()).map(fromRow);
  }

  protected async putAsk(ask: AskInput): Promise<boolean> {
    if (await this.get(ask.id)) return false;
    await this.db
      .insertInto("arbor_asks")
      .values({ id: ask.id, session_id: ask.sessionId, created_at: ask.createdAt, data: JSON.stringify(ask), answer: null })
      .execute();
    return true;
  }

  protected async putAnswer(id: string, answer: AskAnswer): Promise<boolean> {
    const result = await this.db
      .updateTable("arbor_asks")
      .set({ answer: JSON.stringify(answer) })
      .where("id", "=", id)
      .where("answer", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
