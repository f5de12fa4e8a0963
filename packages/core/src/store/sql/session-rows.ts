import type { Kysely } from "kysely";
import { ArborError } from "../../errors.js";
import { assertSessionId } from "../../model/ids.js";
import type { SessionMeta, StoreProvider } from "../../model/session.js";
import { decodeCursor, encodeCursor, newSessionMeta, pageLimit } from "../session-meta.js";
import type { ListSessionsOptions, SessionPage } from "../store.js";
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
  /** The store's kind, which a damaged row's stand-in names. */
  provider: StoreProvider;
}

interface PageRow {
  id: string;
  data: string;
  created_at: string;
  parent_session_id: string | null;
  /** SQLite only (see sqlite-session-tail.ts). */
  tail_seq?: number | null;
}

/**
 * A row's meta, or for a row that does not read (edited by hand, written by a newer Arbor) a
 * stand-in with its id, time and parent and `damaged` saying why: one bad row must not hide the
 * others, nor itself, so that it can be found and deleted.
 */
function pageMeta(row: PageRow, provider: StoreProvider): SessionMeta {
  try {
    return parseSessionRow(row.data, row.id);
  } catch (err) {
    if (!(err instanceof ArborError)) throw err;
    const standIn = newSessionMeta(undefined, provider, row.id, row.created_at);
    return { ...standIn, ...(row.parent_session_id ? { parentSessionId: row.parent_session_id } : {}), damaged: err.message };
  }
}

/**
 * One page of sessions, newest first, plus one more row to tell whether another page follows.
 * `lagging`: the sessions of the page whose SQLite row lags its entries (see sqlite-session-tail.ts),
 * read as damaged rows are not; always empty elsewhere.
 */
async function sessionPageRows(
  db: Db,
  query: SessionPageQuery,
): Promise<{ sessions: SessionMeta[]; more: boolean; lagging: string[] }> {
  const { limit, cursor, parent, cwd } = query;
  const rows: PageRow[] = await db
    .selectFrom("arbor_sessions")
    .select(["id", "data", "created_at", "parent_session_id"])
    .$if(query.provider === "sqlite", (q) => q.select("tail_seq"))
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
  const sessions = rows.slice(0, limit).map((r) => pageMeta(r, query.provider));
  const lagging = rows.slice(0, limit).flatMap((r, i) => (r.tail_seq != null && !sessions[i]?.damaged ? [r.id] : []));
  return { sessions, more: rows.length > limit, lagging };
}

/** What a listed page needs of the store besides its rows. */
export interface PageReads {
  /** The lagging rows with their SQLite tails folded in (see sqlite-session-tail.ts); undefined elsewhere. */
  fold: (metas: SessionMeta[], lagging: string[]) => Promise<SessionMeta[] | undefined>;
  /** A running session's status as its lease says (see liveStatus). */
  live: (meta: SessionMeta) => Promise<SessionMeta>;
}

/** `listSessions`: a page of rows as readers see them, and the cursor of the next page when there is one. */
export async function listSessionPage(
  db: Db,
  provider: StoreProvider,
  opts: ListSessionsOptions | undefined,
  reads: PageReads,
): Promise<SessionPage> {
  const limit = pageLimit(opts?.limit);
  const cursor = opts?.cursor === undefined ? undefined : decodeCursor(opts.cursor);
  const parent = opts?.parentSessionId;
  if (parent !== undefined && parent !== null) assertSessionId(parent);
  const page = await sessionPageRows(db, { limit, cursor, parent, cwd: opts?.cwd, provider });
  const rows = page.lagging.length > 0 ? ((await reads.fold(page.sessions, page.lagging)) ?? page.sessions) : page.sessions;
  const sessions = await Promise.all(rows.map(reads.live));
  const last = sessions[sessions.length - 1];
  return page.more && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
}
