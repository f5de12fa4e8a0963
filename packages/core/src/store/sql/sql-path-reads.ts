import type { Entry } from "../../model/entry.js";
import type { LivePath } from "../live-path.js";
import { type SqlConnection, sqliteNow } from "./connect.js";
import { activePathOrCorrupt, leafEntryIdOf } from "./entry-reads.js";
import { livePathRows } from "./live-path-rows.js";
import { sessionNotFound } from "./rows.js";
import type { SqliteAppender } from "./sqlite-append.js";
import { SqliteLivePathReader } from "./sqlite-live-path.js";

/**
 * A session's active and live path on the SQL stores. On SQLite the walk starts at the leaf as the
 * appender gives it (the lease holder's own, or the row's with its tail folded in, see
 * sqlite-session-tail.ts), never at the row's column, which may lag; elsewhere at the row's.
 */
export class SqlPathReads {
  /** `getLivePath` on prepared statements (SQLite only). */
  private readonly livePaths: SqliteLivePathReader | undefined;

  constructor(
    private readonly conn: SqlConnection,
    private readonly appender: SqliteAppender | undefined,
  ) {
    this.livePaths = conn.sqlite && appender ? new SqliteLivePathReader(conn.sqlite, appender.leafOf) : undefined;
  }

  activePath(sessionId: string): Promise<Entry[]> {
    return this.leafOf(sessionId).then((leaf) => activePathOrCorrupt(this.conn.db, sessionId, leaf));
  }

  async livePath(sessionId: string): Promise<LivePath> {
    const reader = this.livePaths;
    const path = reader && (await sqliteNow(this.conn, () => reader.read(sessionId)));
    if (path) return path;
    const folded = await this.leafOf(sessionId);
    const leaf = folded !== undefined ? folded : await leafEntryIdOf(this.conn.db, sessionId);
    if (leaf === null) return { entries: [], complete: true };
    return livePathRows(this.conn.db, sessionId, leaf);
  }

  /** SQLite: the session's leaf, null when it has none (throws when there is no such session); else undefined. */
  private async leafOf(sessionId: string): Promise<string | null | undefined> {
    const appender = this.appender;
    if (!appender) return undefined;
    const leaf = await sqliteNow(this.conn, () => appender.leafOf(sessionId));
    if (leaf === undefined) throw sessionNotFound(sessionId);
    return leaf;
  }
}
