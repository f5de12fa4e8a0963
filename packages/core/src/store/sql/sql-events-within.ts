import { CompiledQuery, type Kysely } from "kysely";
import type { SessionMeta } from "../../model/session.js";
import type { CheckedEvent, StoredEvent } from "../event-records.js";
import type { SqlExecutor } from "../store.js";
import { appendEventRows } from "./event-log.js";
import { insertSessionRow } from "./session-rows.js";
import { lockSession, type SqlWriter } from "./sql-entry-writes.js";
import type { ArborDatabase } from "./tables.js";

/**
 * The body of `appendEventsWithin`, in the caller's transaction: the session created when asked
 * (`create`), its row locked, the events appended, then the caller's own statements (a queue's job)
 * over the same connection, so all of it commits or none does. Kept apart from the store class,
 * which only opens the transaction around it.
 */
export async function appendEventsWithinTrx(
  trx: Kysely<ArborDatabase>,
  w: SqlWriter,
  sessionId: string,
  checked: CheckedEvent[],
  opts: { now: string; maxEvents: number; create: SessionMeta | undefined },
  within: (sql: SqlExecutor) => Promise<void>,
): Promise<StoredEvent[]> {
  if (opts.create) await insertSessionRow(trx, opts.create, 0);
  await lockSession(trx, w, sessionId, false);
  const stored = checked.length === 0 ? [] : await appendEventRows(trx, sessionId, checked, opts.now, opts.maxEvents);
  await within({
    executeSql: async (text, values) => {
      const { rows } = await trx.executeQuery(CompiledQuery.raw(text, values ?? []));
      return { rows: [...rows] };
    },
  });
  return stored;
}
