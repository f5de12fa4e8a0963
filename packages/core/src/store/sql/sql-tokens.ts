import type { Kysely } from "kysely";
import { parseTokenRecord, type TokenRecord, TokenRecordSchema, tokenNotFound } from "../../auth/tokens.js";
import { ArborError } from "../../errors.js";
import { byCreated, type TokenStore } from "../tokens.js";
import type { ArborDatabase, TokensTable } from "./tables.js";

type Db = Kysely<ArborDatabase>;
type Guard = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

function fromRow(row: Pick<TokensTable, "data" | "revoked_at">): TokenRecord {
  const parsed = TokenRecordSchema.safeParse(JSON.parse(row.data));
  if (!parsed.success) throw new ArborError("corrupt_session", "A token row does not hold a token record.");
  return row.revoked_at === null ? parsed.data : { ...parsed.data, revokedAt: row.revoked_at };
}

/** The SQL stores' tokens: one `arbor_tokens` row each, looked up by the hash's unique index. */
export function sqlTokens(db: Db, guard: Guard): TokenStore {
  const read = async (id: string) => {
    const row = await db.selectFrom("arbor_tokens").select(["data", "revoked_at"]).where("id", "=", id).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  };
  return {
    add: (input) =>
      guard("record a token", async () => {
        const record = parseTokenRecord(input);
        if (await read(record.id)) throw new ArborError("invalid_input", `A token with id ${record.id} exists already.`);
        const { revokedAt, ...kept } = record;
        await db
          .insertInto("arbor_tokens")
          .values({
            id: record.id,
            hash: record.hash,
            created_at: record.createdAt,
            data: JSON.stringify(kept),
            revoked_at: revokedAt ?? null,
          })
          .execute();
        return record;
      }),
    list: () =>
      guard("list tokens", async () => {
        const rows = await db
          .selectFrom("arbor_tokens")
          .select(["data", "revoked_at"])
          .orderBy("created_at")
          .orderBy("id")
          .execute();
        return rows.map(fromRow).sort(byCreated);
      }),
    findByHash: (hash) =>
      guard("look up a token", async () => {
        const row = await db
          .selectFrom("arbor_tokens")
          .select(["data", "revoked_at"])
          .where("hash", "=", hash)
          .executeTakeFirst();
        return row ? fromRow(row) : undefined;
      }),
    revoke: (id, at) =>
      guard("revoke a token", async () => {
        const current = await read(id);
        if (!current) throw tokenNotFound(id);
        if (current.revokedAt !== undefined) return current;
        await db
          .updateTable("arbor_tokens")
          .set({ revoked_at: at })
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .execute();
        return (await read(id)) ?? current;
      }),
  };
}
