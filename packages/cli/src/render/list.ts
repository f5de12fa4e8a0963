import type { SessionMeta, SessionPage } from "@arbor/core";
import { formatTime, oneLine, table, truncate } from "./text.js";

export interface ListOptions {
  /** Longest title, in characters (default 60). */
  maxTitle?: number;
  /** Shown in the next-page hint so that it can be pasted as is, e.g. `arbor sessions list --limit 20`. */
  command?: string;
}

function title(meta: SessionMeta): string {
  return oneLine(meta.title ?? meta.task ?? "");
}

/** One page of sessions as a table (newest first, as the store returns them) and the next cursor. */
export function renderSessionList(page: SessionPage, opts: ListOptions = {}): string[] {
  const maxTitle = opts.maxTitle ?? 60;
  const lines =
    page.sessions.length === 0
      ? ["No sessions."]
      : table(
          ["ID", "CREATED (UTC)", "UPDATED (UTC)", "MESSAGES", "TITLE"],
          page.sessions.map((s) => [
            s.id,
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
