import type { Kysely } from "kysely";
import type { EventInput } from "../event-records.js";
import type { InboxPage } from "../inbox.js";
import { type SqlConnection, sqliteNow } from "./connect.js";
import { inboxPageRows } from "./event-log.js";
import { SqliteInboxReader } from "./sqlite-events.js";
import { SqliteInboxLook } from "./sqlite-inbox-look.js";
import type { ArborDatabase } from "./tables.js";

/**
 * A session's inbox on SQL: the messages left for its run among the events. PostgreSQL and MySQL
 * read a page with one query every time. SQLite reads on prepared statements and, for the sessions
 * this store drives, remembers each read so a step can ask whether anything may be new instead of
 * reading (see SqliteInboxLook); this store's own posts are noted as they are made.
 */
export class SqlInbox {
  private readonly db: Kysely<ArborDatabase>;
  private readonly reader: SqliteInboxReader | undefined;
  private readonly look: SqliteInboxLook | undefined;

  /** `holds`: whether this store holds the session's lease (only a driven session's reads are remembered). */
  constructor(
    private readonly conn: SqlConnection,
    private readonly holds: (sessionId: string) => boolean,
  ) {
    this.db = conn.db;
    const sqlite = conn.sqlite;
    this.reader = sqlite ? new SqliteInboxReader(sqlite) : undefined;
    this.look = sqlite ? new SqliteInboxLook(sqlite, () => conn.sqliteGate.busy("sqlite")) : undefined;
  }

  /** Appends events through `append`; an inbox message among them is noted for the run that reads it. */
  posting<T>(sessionId: string, inputs: readonly EventInput[], append: () => Promise<T>): Promise<T> {
    return this.look ? this.look.posting(sessionId, inputs, append) : append();
  }

  /** One page of the inbox after `after`. */
  read(sessionId: string, after: string | undefined): Promise<InboxPage> {
    const { reader, look } = this;
    if (!reader || !look) return inboxPageRows(this.db, sessionId, after);
    return sqliteNow(this.conn, () =>
      this.holds(sessionId)
        ? look.reading(sessionId, () => reader.page(sessionId, after, true))
        : reader.page(sessionId, after, false),
    );
  }

  /** False only when nothing can be new since the read that gave `after` (SQLite, a driven session). */
  mayHaveNew(sessionId: string, after: string): boolean {
    return this.look?.mayHaveNew(sessionId, after) ?? true;
  }

  /** A write transaction of this store committed: its `data_version` is the one after its own writes. */
  sampled(): void {
    this.look?.sampled();
  }

  /** The store gave the session's lease back: its reads are no longer remembered. */
  end(sessionId: string): void {
    this.look?.end(sessionId);
  }
}
