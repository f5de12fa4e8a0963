import { type Insertable, type Kysely, sql } from "kysely";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import { parseEntryRow } from "./rows.js";
import type { ArborDatabase, EntriesTable, SqlKind } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/**
 * Multi-row statements are cut into pieces: PostgreSQL allows 65,535 bound parameters per
 * statement and MySQL's default max_allowed_packet is 16 MB, while an imported session can hold
 * thousands of entries of up to 8 MB each.
 */
const MAX_ROWS_PER_STATEMENT = 500;
const MAX_BYTES_PER_STATEMENT = 4 * 1024 * 1024;

export function* chunks<T>(items: readonly T[], size = MAX_ROWS_PER_STATEMENT): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export async function insertEntryRows(db: Db, rows: readonly Insertable<EntriesTable>[]): Promise<void> {
  let batch: Insertable<EntriesTable>[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (batch.length > 0 && (batch.length >= MAX_ROWS_PER_STATEMENT || bytes + row.data.length * 3 > MAX_BYTES_PER_STATEMENT)) {
      await db.insertInto("arbor_entries").values(batch).execute();
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += row.data.length * 3;
  }
  if (batch.length > 0) await db.insertInto("arbor_entries").values(batch).execute();
}

/** The session row, locked against other writers until the transaction ends (SQLite: the whole database is). */
export function lockSessionRow(db: Db, kind: SqlKind, id: string) {
  return db
    .selectFrom("arbor_sessions")
    .select(["data", "next_seq"])
    .where("id", "=", id)
    .$if(kind !== "sqlite", (q) => q.forUpdate())
    .executeTakeFirst();
}

/**
 * The session's row, locked, with its lease's row read by the same statement: a write's fence costs
 * no round trip of its own. PostgreSQL locks only the session row (it cannot lock the empty side of
 * an outer join); MySQL and MariaDB lock the lease row too, which a heartbeat then waits on until
 * the write commits.
 */
export function lockSessionRowWithLease(db: Db, kind: SqlKind, id: string) {
  return db
    .selectFrom("arbor_sessions as s")
    .leftJoin("arbor_leases as l", "l.session_id", "s.id")
    .select(["s.data", "s.next_seq", "l.holder", "l.expires_at", "l.token"])
    .where("s.id", "=", id)
    .$if(kind === "postgres", (q) => q.forUpdate("s"))
    .$if(kind === "mysql", (q) => q.forUpdate())
    .executeTakeFirst();
}

/** The session's rows of `arbor_entries`, to select from: no entry query forgets the session. */
export function sessionEntryRows(db: Db, sessionId: string) {
  return db.selectFrom("arbor_entries").where("session_id", "=", sessionId);
}

/** Which of `ids` name entries of the session. */
export async function existingEntryIds(db: Db, sessionId: string, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(ids)) {
    if (part.length === 0) continue;
    const rows = await sessionEntryRows(db, sessionId).select("id").where("id", "in", part).execute();
    for (const r of rows) found.add(r.id);
  }
  return found;
}

/** Deeper than any real conversation; reached only by a parent cycle in a hand-edited table. */
const MAX_PATH_DEPTH = 1_000_000;

/**
 * Root → leaf, walking parent links in the database so only the path is read, never the whole
 * session. The parent lookup is a correlated subquery rather than a join: with a join PostgreSQL
 * may plan a hash over all of the session's entries on every step (measured 3 s for 5,000 deep),
 * while a subquery on the primary key is one index probe per step on every dialect.
 */
export async function activePathRows(db: Db, sessionId: string, leaf?: string): Promise<Entry[]> {
  // A leaf the caller read already (SQLite's, with the row's tail folded in) starts the walk; else the row's.
  const start =
    leaf === undefined
      ? sql`select leaf_entry_id, 0 from arbor_sessions where id = ${sessionId} and leaf_entry_id is not null`
      : sql`select id, 0 from arbor_entries where session_id = ${sessionId} and id = ${leaf}`;
  const { rows } = await sql<{ data: string }>`
    with recursive path (id, depth) as (
      ${start}
      union all
      select (select e.parent_id from arbor_entries e where e.session_id = ${sessionId} and e.id = p.id), p.depth + 1
        from path p
        where p.id is not null and p.depth < ${MAX_PATH_DEPTH}
    )
    select e.data from path p join arbor_entries e on e.session_id = ${sessionId} and e.id = p.id
    order by p.depth desc`.execute(db);
  const path = rows.map((r) => parseEntryRow(r.data, sessionId));
  const root = path[0];
  if (root && root.parentId !== null) {
    throw new ArborError(
      "corrupt_session",
      `Session ${sessionId}: the active path breaks at entry ${root.id}, whose parent ${root.parentId} is missing (or the parent links loop).`,
    );
  }
  return path;
}

/** The session and, transitively, every session whose parent_session_id leads to it. UNION stops at cycles. */
async function sessionTreeIds(db: Db, id: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    with recursive tree (id) as (
      select id from arbor_sessions where id = ${id}
      union
      select s.id from arbor_sessions s join tree t on s.parent_session_id = t.id
    )
    select id from tree`.execute(db);
  return rows.map((r) => r.id);
}

/**
 * Deletes a session, its sub-sessions at any depth, and all their entries. The rows are locked in
 * id order first, so two overlapping deletes cannot deadlock and no append can slip an entry in
 * between the entry and session deletes.
 */
export async function deleteSessionTree(
  db: Db,
  kind: SqlKind,
  id: string,
  check: (ids: readonly string[]) => Promise<void>,
): Promise<void> {
  const ids = (await sessionTreeIds(db, id)).sort();
  if (kind !== "sqlite") {
    for (const part of chunks(ids))
      await db.selectFrom("arbor_sessions").select("id").where("id", "in", part).orderBy("id").forUpdate().execute();
  }
  await check(ids);
  for (const part of chunks(ids)) await db.deleteFrom("arbor_leases").where("session_id", "in", part).execute();
  for (const part of chunks(ids)) await db.deleteFrom("arbor_asks").where("session_id", "in", part).execute();
  for (const part of chunks(ids)) await db.deleteFrom("arbor_entries").where("session_id", "in", part).execute();
  for (const part of chunks(ids)) await db.deleteFrom("arbor_events").where("session_id", "in", part).execute();
  for (const part of chunks(ids)) await db.deleteFrom("arbor_sessions").where("id", "in", part).execute();
}
