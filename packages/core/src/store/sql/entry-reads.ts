import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import { activePathRows, sessionEntryRows } from "./queries.js";
import { parseEntryRow, sessionNotFound } from "./rows.js";
import type { ArborDatabase, SqlKind } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/**
 * The SQL store's reads of one session's entries outside a transaction. An empty answer is checked
 * against the session row only then, so the common read costs one query.
 */

export async function hasSessionRow(db: Db, id: string): Promise<boolean> {
  const row = await db.selectFrom("arbor_sessions").select("id").where("id", "=", id).executeTakeFirst();
  return row !== undefined;
}

/** Throws `session_not_found` unless the session exists. */
export async function assertSessionRow(db: Db, id: string): Promise<void> {
  if (!(await hasSessionRow(db, id))) throw sessionNotFound(id);
}

/** The session's leaf entry id (null when it has no leaf); throws `session_not_found` when there is no such session. */
export async function leafEntryIdOf(db: Db, sessionId: string): Promise<string | null> {
  const row = await db.selectFrom("arbor_sessions").select("leaf_entry_id").where("id", "=", sessionId).executeTakeFirst();
  if (!row) throw sessionNotFound(sessionId);
  return row.leaf_entry_id;
}

/**
 * Every entry of the session in the order they were appended. On SQLite `seq` is the table's key and
 * no index orders a session's entries by it: the session's keys come from the (session, id) index,
 * then the rows are read by key in ascending order, instead of sorting the rows with their data.
 */
export async function entryRows(db: Db, kind: SqlKind, sessionId: string): Promise<Entry[]> {
  const rows =
    kind === "sqlite"
      ? await db
          .selectFrom("arbor_entries")
          .select("data")
          .where("seq", "in", sessionEntryRows(db, sessionId).select("seq"))
          .orderBy("seq")
          .execute()
      : await sessionEntryRows(db, sessionId).select("data").orderBy("seq").execute();
  if (rows.length === 0) await assertSessionRow(db, sessionId);
  return rows.map((r) => parseEntryRow(r.data, sessionId));
}

/** One entry of the session, undefined when the session has no such entry. */
export async function entryRowById(db: Db, sessionId: string, entryId: string): Promise<Entry | undefined> {
  const row = await sessionEntryRows(db, sessionId).select("data").where("id", "=", entryId).executeTakeFirst();
  if (row) return parseEntryRow(row.data, sessionId);
  await assertSessionRow(db, sessionId);
  return undefined;
}

/** The root-to-leaf path; a leaf that names no entry of the session is damage, said so rather than read as empty. */
export async function activePathOrCorrupt(db: Db, sessionId: string, knownLeaf?: string | null): Promise<Entry[]> {
  if (knownLeaf === null) return [];
  const path = await activePathRows(db, sessionId, knownLeaf);
  if (path.length > 0) return path;
  const leaf = knownLeaf ?? (await leafEntryIdOf(db, sessionId));
  if (leaf !== null) {
    throw new ArborError("corrupt_session", `Session ${sessionId}: its leaf ${leaf} is not among its entries.`);
  }
  return [];
}
