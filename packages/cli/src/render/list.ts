import type { SessionMeta, SessionPage } from "@arbor/core";
import { formatTime, oneLine, table, truncate } from "./text.js";

export interface ListOptions {
  /** Sub-traces by parent id: each is listed, indented, under its parent. */
  children?: ReadonlyMap<string, readonly SessionMeta[]>;
  /** Longest title, in characters (default 60). */
  maxTitle?: number;
  /** Shown in the next-page hint so that it can be pasted as is, e.g. `arbor sessions list --limit 20`. */
  command?: string;
}

function title(meta: SessionMeta): string {
  // Listed so that it can be found and deleted: say first that it will not open, and why.
  if (meta.damaged) return oneLine(`[damaged: ${meta.damaged}] ${meta.title ?? meta.task ?? ""}`);
  if (meta.parentSessionId)
    return oneLine(`[${meta.agentType}${meta.status ? `, ${meta.status}` : ""}] ${meta.task ?? meta.title ?? ""}`);
  // A session that did not end well says so first; one that never got a title says that too.
  const marker =
    meta.status === "interrupted" || meta.status === "failed" || meta.status === "aborted" ? `[${meta.status}] ` : "";
  return oneLine(`${marker}${meta.title ?? meta.task ?? "(untitled)"}`);
}

/** The page's sessions with their sub-traces after them, depth first; `depth` indents the id. */
function withChildren(
  sessions: readonly SessionMeta[],
  children: ReadonlyMap<string, readonly SessionMeta[]> | undefined,
): Array<{ meta: SessionMeta; depth: number }> {
  const out: Array<{ meta: SessionMeta; depth: number }> = [];
  const visit = (meta: SessionMeta, depth: number) => {
    out.push({ meta, depth });
    if (depth < 8) for (const child of children?.get(meta.id) ?? []) visit(child, depth + 1);
  };
  for (const meta of sessions) visit(meta, 0);
  return out;
}

/** One page of sessions as a table (newest first, as the store returns them) and the next cursor. */
export function renderSessionList(page: SessionPage, opts: ListOptions = {}): string[] {
  const maxTitle = opts.maxTitle ?? 60;
  const lines =
    page.sessions.length === 0
      ? ["No sessions."]
      : table(
          ["ID", "CREATED (UTC)", "UPDATED (UTC)", "MESSAGES", "TITLE"],
          withChildren(page.sessions, opts.children).map(({ meta: s, depth }) => [
            depth === 0 ? s.id : `${"  ".repeat(depth - 1)}└ ${s.id}`,
            formatTime(s.createdAt),
            formatTime(s.updatedAt),
            String(s.totalMessages),
            truncate(title(s), maxTitle),
          ]),
        );
  if (page.nextCursor !== undefined) {
    lines.push("", `next cursor: ${page.nextCursor}  (${opts.command ?? "arbor sessions list"} --cursor ${page.nextCursor})`);
  }
  return lines;
}
