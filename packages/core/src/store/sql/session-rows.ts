import type { Kysely } from "kysely";
import type { SessionMeta } from "../../model/session.js";
import { parseSessionRow, sessionColumns, sessionExists } from "./rows.js";
import { isUniqueViolation } from "./sql-errors.js";
import type { ArborDatabase } from "./tables.js";

type Db = Kysely<ArborDatabase>;

/** Inserts a session's row; an id already taken is `session_exists`. Used by create and import. */
export async function insertSessionRow(db: Db, meta: SessionMeta, nextSeq: number): Promise<void> {
  try {
    await db
      .insertInto("arbor_sessions")
      .values({
        id: meta.id,
        created_at: meta.createdAt,
        parent_session_id: meta.parentSessionId ?? null,
        next_seq: nextSeq,
        ...sessionColumns(meta),
      })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw sessionExists(meta.id);
    throw err;
  }
}

export interface SessionPageQuery {
  limit: number;
  cursor: { createdAt: string; id: string } | undefined;
  /** A session id lists its children; null lists top-level sessions; undefined lists all. */
  parent: string | null | undefined;
  /** Only sessions whose workspace is exactly this directory. */
  cwd?: string | undefined;
}

/** One page of sessions, newest first, plus one more row to tell whether another page follows. */
export async function sessionPageRows(db: Db, query: SessionPageQuery): Promise<{ sessions: SessionMeta[]; more: boolean }> {
  const { limit, cursor, parent, cwd } = query;
  const rows = await db
    .selectFrom("arbor_sessions")
    .select(["id", "data"])
    .$if(parent === null, (q) => q.where("parent_session_id", "is", null))
    .$if(typeof parent === "string", (q) => q.where("parent_session_id", "=", parent as string))
    .$if(cwd !== undefined, (q) => q.where("cwd", "=", cwd as string))
    .$if(cursor !== undefined, (q) => {
      const c = cursor as { createdAt: string; id: string };
      return q.where((eb) =>
        eb.or([eb("created_at", "<", c.createdAt), eb.and([eb("created_at", "=", c.createdAt), eb("id", "<", c.id)])]),
      );
    })
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  return { sessions: rows.slice(0, limit).map((r) => parseSessionRow(r.data, r.id)), more: rows.length > limit };
}
