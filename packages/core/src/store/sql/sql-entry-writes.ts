import type { Insertable, Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { checkAppend, metaAfterBatch, planAppend } from "../append-plan.js";
import { applyEntryPatch, metaAfterUpdate, missingReferenceError, type PrepareContext, referencedIds } from "../prepare.js";
import { reconcileStatus } from "../session-status.js";
import type { EntryPatch } from "../store.js";
import { existingEntryIds, insertEntryRows, lockSessionRow, lockSessionRowWithLease, sessionEntryRows } from "./queries.js";
import { entryNotFound, entryRow, parseEntryRow, parseSessionRow, sessionColumns, sessionNotFound } from "./rows.js";
import { isUniqueViolation } from "./sql-errors.js";
import type { SqlLeases } from "./sql-leases.js";
import type { ArborDatabase, EntriesTable, SqlKind } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/** What a write transaction needs of its store: the dialect and the session leases. */
export interface SqlWriter {
  kind: SqlKind;
  leases: SqlLeases;
}

/**
 * The session's row lock; a write that changes the session is refused while another process drives
 * it, and a holder's write when its lease is no longer the stored one (`SqlLeases.checkLeaseRow`).
 */
export async function lockSession(
  trx: Db,
  w: SqlWriter,
  id: string,
  leased = true,
): Promise<{ meta: SessionMeta; nextSeq: number }> {
  if (!leased) {
    const row = await lockSessionRow(trx, w.kind, id);
    if (!row) throw sessionNotFound(id);
    return { meta: parseSessionRow(row.data, id), nextSeq: row.next_seq };
  }
  const row = await lockSessionRowWithLease(trx, w.kind, id);
  if (!row) throw sessionNotFound(id);
  w.leases.checkLeaseRow(
    id,
    row.token === null ? undefined : { holder: row.holder ?? "", expires_at: row.expires_at ?? 0, token: row.token },
  );
  return { meta: parseSessionRow(row.data, id), nextSeq: row.next_seq };
}

export async function saveMeta(trx: Db, meta: SessionMeta, nextSeq?: number): Promise<void> {
  await trx
    .updateTable("arbor_sessions")
    .set({ ...sessionColumns(meta), ...(nextSeq === undefined ? {} : { next_seq: nextSeq }) })
    .where("id", "=", meta.id)
    .execute();
}

export async function storedMeta(db: Db, id: string): Promise<SessionMeta | undefined> {
  const row = await db.selectFrom("arbor_sessions").select("data").where("id", "=", id).executeTakeFirst();
  return row ? parseSessionRow(row.data, id) : undefined;
}

/** A session marked running whose driver is gone reads as interrupted (see `reconcileStatus`). */
export async function liveStatus(db: Db, leases: SqlLeases, meta: SessionMeta): Promise<SessionMeta> {
  if (meta.status !== "running") return meta;
  // The lookups are synchronous in reconcileStatus, so the chain's leases and parents are read first.
  const driven = new Set<string>();
  const parents = new Map<string, string | undefined>();
  let id: string | undefined = meta.id;
  for (let depth = 0; id !== undefined && depth < 64 && !parents.has(id); depth++) {
    if (await leases.holder(id)) driven.add(id);
    const parent: string | undefined = id === meta.id ? meta.parentSessionId : (await storedMeta(db, id))?.parentSessionId;
    parents.set(id, parent);
    id = parent;
  }
  return reconcileStatus(
    meta,
    (sid) => driven.has(sid),
    (sid) => parents.get(sid),
  );
}

/** An append through Kysely (MySQL, PostgreSQL): the ids it needs are fetched in one query. */
export async function appendInTransaction(
  trx: Db,
  w: SqlWriter,
  sessionId: string,
  inputs: readonly unknown[],
  ctx: Omit<PrepareContext, "leafId">,
): Promise<Entry[]> {
  const { meta, nextSeq } = await lockSession(trx, w, sessionId);
  const plan = planAppend(inputs, meta.leafEntryId, ctx);
  const existing = await existingEntryIds(trx, sessionId, plan.lookups);
  checkAppend(sessionId, plan, (id) => existing.has(id));
  const rows: Insertable<EntriesTable>[] = plan.prepared.map(({ entry, json }, i) =>
    entryRow(sessionId, entry, json, nextSeq + i),
  );
  try {
    await insertEntryRows(trx, rows);
  } catch (err) {
    // Only reachable if the table was changed behind the row lock (e.g. by hand).
    if (isUniqueViolation(err))
      throw new ArborError("duplicate_entry", `An entry id of this batch is already used in session ${sessionId}.`);
    throw err;
  }
  const appended = plan.prepared.map((p) => p.entry);
  await saveMeta(trx, metaAfterBatch(meta, appended), nextSeq + rows.length);
  return appended;
}

export async function updateEntryInTransaction(
  trx: Db,
  w: SqlWriter,
  sessionId: string,
  entryId: string,
  patch: EntryPatch,
  checkSize: (json: string) => void,
): Promise<Entry> {
  const { meta } = await lockSession(trx, w, sessionId);
  const row = await sessionEntryRows(trx, sessionId).select("data").where("id", "=", entryId).executeTakeFirst();
  if (!row) throw entryNotFound(sessionId, entryId);
  const before = parseEntryRow(row.data, sessionId);
  const after = applyEntryPatch(before, patch);
  // A patch may repoint a label, compaction or branch summary; the target must exist like on append.
  const refs = referencedIds(after).filter((r) => r !== after.parentId);
  const existing = await existingEntryIds(trx, sessionId, refs);
  for (const ref of refs) if (!existing.has(ref)) throw missingReferenceError(sessionId, after, ref);
  const json = JSON.stringify(after);
  checkSize(json);
  await trx
    .updateTable("arbor_entries")
    .set({ data: json })
    .where("session_id", "=", sessionId)
    .where("id", "=", entryId)
    .execute();
  await saveMeta(trx, metaAfterUpdate(meta, before, after));
  return after;
}

export async function moveLeafInTransaction(
  trx: Db,
  w: SqlWriter,
  sessionId: string,
  leafId: string | null,
  now: string,
): Promise<SessionMeta> {
  const { meta } = await lockSession(trx, w, sessionId);
  if (leafId !== null && !(await existingEntryIds(trx, sessionId, [leafId])).has(leafId)) {
    throw entryNotFound(sessionId, leafId);
  }
  const next = { ...meta, leafEntryId: leafId, updatedAt: now > meta.updatedAt ? now : meta.updatedAt };
  await saveMeta(trx, next);
  return next;
}
