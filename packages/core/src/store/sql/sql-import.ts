import type { Insertable, Kysely } from "kysely";
import type { Entry } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { checkEntrySize } from "../prepare.js";
import { insertEntryRows } from "./queries.js";
import { entryRow } from "./rows.js";
import { insertSessionRow } from "./session-rows.js";
import type { ArborDatabase, EntriesTable, SqlKind } from "./tables.js";

/**
 * An imported session's entry rows, each checked against the size limit before anything is written.
 * SQLite numbers the rows itself, in insertion order (see EntriesTable.seq); the others are given it.
 */
export function importedEntryRows(
  kind: SqlKind,
  meta: SessionMeta,
  entries: readonly Entry[],
  maxEntryBytes: number,
): Insertable<EntriesTable>[] {
  const sqlite = kind === "sqlite";
  return entries.map((entry, seq) => {
    const json = JSON.stringify(entry);
    checkEntrySize(json, maxEntryBytes);
    return entryRow(meta.id, entry, json, sqlite ? undefined : seq);
  });
}

/** Writes an imported session in the caller's transaction: its row (the id must be free), then its entries. */
export async function insertImported(
  trx: Kysely<ArborDatabase>,
  meta: SessionMeta,
  rows: readonly Insertable<EntriesTable>[],
): Promise<SessionMeta> {
  await insertSessionRow(trx, meta, rows.length);
  await insertEntryRows(trx, rows);
  return meta;
}
