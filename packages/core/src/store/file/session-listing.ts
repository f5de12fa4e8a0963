import { ArborError } from "../../errors.js";
import type { SessionMeta } from "../../model/session.js";
import { compareNewestFirst, encodeCursor, isAfterCursor } from "../session-meta.js";
import type { SessionPage } from "../store.js";
import { damagedMeta } from "./damaged.js";
import type { SessionDirs } from "./session-dir.js";

/**
 * Every session's meta. One unreadable session must not hide the others, nor itself: it is listed
 * as damaged, so that it can be found and deleted.
 */
export async function allSessionMetas(
  dirs: SessionDirs,
  getSession: (id: string) => Promise<SessionMeta | undefined>,
): Promise<SessionMeta[]> {
  const out: SessionMeta[] = [];
  for (const name of dirs.names()) {
    try {
      const meta = await getSession(name);
      if (meta) out.push(meta);
    } catch (err) {
      if (!(err instanceof ArborError) || err.code === "io_error") throw err;
      const damaged = damagedMeta(dirs, name, err);
      if (damaged) out.push(damaged);
    }
  }
  return out;
}

/**
 * One page of sessions, newest first: a parent's sub-sessions, only top-level ones (`null`), or all;
 * with `cwd`, only those whose workspace is exactly that directory.
 */
export function pageOfSessions(
  metas: readonly SessionMeta[],
  filter: { parent: string | null | undefined; cwd?: string | undefined },
  cursor: { createdAt: string; id: string } | undefined,
  limit: number,
): SessionPage {
  const matches = metas
    .filter((m) => {
      const parentSessionId = filter.parent;
      if (filter.cwd !== undefined && m.cwd !== filter.cwd) return false;
      if (parentSessionId === null) return m.parentSessionId === undefined;
      if (parentSessionId !== undefined) return m.parentSessionId === parentSessionId;
      return true;
    })
    .filter((m) => !cursor || isAfterCursor(m, cursor))
    .sort(compareNewestFirst);
  const sessions = matches.slice(0, limit);
  const last = sessions[sessions.length - 1];
  return matches.length > limit && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
}
