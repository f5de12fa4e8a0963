import type { Kysely } from "kysely";
import type { Entry } from "../../model/entry.js";
import { type PurgeMark, tombstoneOf } from "../../session/purge-entry.js";
import { type EventWindow, PURGED_EVENT_DATA } from "../event-records.js";
import { metaAfterUpdate } from "../prepare.js";
import { sessionEntryRows } from "./queries.js";
import { entryNotFound, parseEntryRow } from "./rows.js";
import { lockSession, type SqlWriter, saveMeta } from "./sql-entry-writes.js";
import type { ArborDatabase } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/**
 * Erases entries in one transaction under the session's row lock: each row's `data` becomes the
 * entry's tombstone (the other columns — id, parent, type, time — place it in the tree and stay).
 * Every row is read and checked before any is written, so a missing id changes nothing.
 */
export async function purgeInTransaction(
  trx: Db,
  w: SqlWriter,
  sessionId: string,
  ids: readonly string[],
  mark: PurgeMark,
): Promise<Entry[]> {
  const { meta } = await lockSession(trx, w, sessionId);
  const pairs: { before: Entry; after: Entry }[] = [];
  for (const id of new Set(ids)) {
    const row = await sessionEntryRows(trx, sessionId).select("data").where("id", "=", id).executeTakeFirst();
    if (!row) throw entryNotFound(sessionId, id);
    const before = parseEntryRow(row.data, sessionId);
    pairs.push({ before, after: tombstoneOf(before, mark) });
  }
  let next = meta;
  for (const { before, after } of pairs) {
    await trx
      .updateTable("arbor_entries")
      .set({ data: JSON.stringify(after) })
      .where("session_id", "=", sessionId)
      .where("id", "=", after.id)
      .execute();
    next = metaAfterUpdate(next, before, after);
  }
  await saveMeta(trx, next);
  return pairs.map((p) => p.after);
}

/** Blanks the session's event records stamped in the window (see `Store.purgeEvents`). */
export async function purgeEventRows(trx: Db, sessionId: string, window: EventWindow): Promise<number> {
  let query = trx
    .updateTable("arbor_events")
    .set({ data: JSON.stringify(PURGED_EVENT_DATA) })
    .where("session_id", "=", sessionId)
    .where("timestamp", ">=", window.from);
  if (window.to !== undefined) query = query.where("timestamp", "<", window.to);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
