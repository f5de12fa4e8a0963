import { type Expression, type Kysely, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { ArborError } from "../../errors.js";
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, type SqlKind } from "./tables.js";

/**
 * Column types per dialect. Ids and timestamps compare byte-wise everywhere (SQLite's default,
 * `ascii_bin` on MySQL, `C` on PostgreSQL) so the database orders and matches them exactly as the
 * JavaScript cursor helpers do; a case-insensitive collation would merge distinct ids.
 */
function columnTypes(kind: SqlKind) {
  switch (kind) {
    case "sqlite":
      return { sessionId: sql`text`, entryId: sql`text`, time: sql`text`, short: sql`text`, json: sql`text` };
    case "mysql":
      return {
        sessionId: sql`varchar(255) character set ascii collate ascii_bin`,
        entryId: sql`varchar(64) character set ascii collate ascii_bin`,
        time: sql`varchar(30) character set ascii collate ascii_bin`,
        short: sql`varchar(64) character set utf8mb4 collate utf8mb4_bin`,
        json: sql`longtext character set utf8mb4 collate utf8mb4_bin`,
      };
    case "postgres":
      return {
        sessionId: sql`varchar(255) collate "C"`,
        entryId: sql`varchar(64) collate "C"`,
        time: sql`varchar(30) collate "C"`,
        short: sql`varchar(64) collate "C"`,
        json: sql`text`,
      };
  }
}

/** Explicit engine and charset on MySQL, so a server with other defaults still gets transactional, exact tables. */
function mysqlTableOptions(kind: SqlKind) {
  return <T extends { modifyEnd(m: Expression<unknown>): T }>(b: T): T =>
    kind === "mysql" ? b.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : b;
}

function sessionsAndEntries(kind: SqlKind): Migration {
  const t = columnTypes(kind);
  const mysqlTable = mysqlTableOptions(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("arbor_sessions")
        .addColumn("id", t.sessionId, (c) => c.notNull().primaryKey())
        .addColumn("created_at", t.time, (c) => c.notNull())
        .addColumn("updated_at", t.time, (c) => c.notNull())
        .addColumn("parent_session_id", t.sessionId)
        .addColumn("leaf_entry_id", t.entryId)
        .addColumn("root_entry_id", t.entryId)
        .addColumn("data", t.json, (c) => c.notNull())
        .addColumn("next_seq", "integer", (c) => c.notNull())
        .$call(mysqlTable)
        .execute();
      // Newest-first paging walks this index backwards from the cursor.
      await db.schema.createIndex("arbor_sessions_created").on("arbor_sessions").columns(["created_at", "id"]).execute();
      await db.schema
        .createIndex("arbor_sessions_parent")
        .on("arbor_sessions")
        .columns(["parent_session_id", "created_at", "id"])
        .execute();

      await db.schema
        .createTable("arbor_entries")
        .addColumn("session_id", t.sessionId, (c) => c.notNull())
        .addColumn("id", t.entryId, (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("parent_id", t.entryId)
        .addColumn("type", t.short, (c) => c.notNull())
        .addColumn("timestamp", t.time, (c) => c.notNull())
        .addColumn("data", t.json, (c) => c.notNull())
        .addPrimaryKeyConstraint("arbor_entries_pk", ["session_id", "id"])
        .$call(mysqlTable)
        .execute();
      await db.schema.createIndex("arbor_entries_seq").on("arbor_entries").columns(["session_id", "seq"]).unique().execute();
    },
  };
}

/** The event log, which watchers and resuming streams read: one row per event, keyed and ordered by (session, event id). */
function events(kind: SqlKind): Migration {
  const t = columnTypes(kind);
  const mysqlTable = mysqlTableOptions(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("arbor_events")
        .addColumn("session_id", t.sessionId, (c) => c.notNull())
        .addColumn("event_id", "integer", (c) => c.notNull())
        .addColumn("type", t.short, (c) => c.notNull())
        .addColumn("timestamp", t.time, (c) => c.notNull())
        .addColumn("data", t.json, (c) => c.notNull())
        .addPrimaryKeyConstraint("arbor_events_pk", ["session_id", "event_id"])
        .$call(mysqlTable)
        .execute();
    },
  };
}

/** Session leases: at most one row per session, naming the process that drives it. */
function leases(kind: SqlKind): Migration {
  const t = columnTypes(kind);
  const mysqlTable = mysqlTableOptions(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("arbor_leases")
        .addColumn("session_id", t.sessionId, (c) => c.notNull().primaryKey())
        .addColumn("token", t.short, (c) => c.notNull())
        .addColumn("holder", t.json, (c) => c.notNull())
        .addColumn("expires_at", kind === "sqlite" ? "integer" : "bigint", (c) => c.notNull())
        .$call(mysqlTable)
        .execute();
    },
  };
}

/**
 * The session's workspace as a column, so listing a project's sessions is a filter in the database
 * rather than a scan of every session's JSON. Existing rows get it from their stored meta.
 */
function sessionCwd(kind: SqlKind): Migration {
  const type = kind === "mysql" ? sql`text character set utf8mb4 collate utf8mb4_bin` : sql`text`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("arbor_sessions").addColumn("cwd", type).execute();
      const { rows } = await sql<{ id: string; data: string }>`select id, data from arbor_sessions`.execute(db);
      for (const row of rows) {
        const cwd = storedCwd(row.data);
        if (cwd !== undefined) await sql`update arbor_sessions set cwd = ${cwd} where id = ${row.id}`.execute(db);
      }
    },
  };
}

function storedCwd(data: string): string | undefined {
  try {
    const meta: unknown = JSON.parse(data);
    const cwd = meta && typeof meta === "object" ? (meta as { cwd?: unknown }).cwd : undefined;
    return typeof cwd === "string" ? cwd : undefined;
  } catch {
    // A damaged row keeps no cwd; reading it reports the damage as before.
    return undefined;
  }
}

/** Asks runs wait on, listed and answered by every process over the database. */
function asks(kind: SqlKind): Migration {
  const t = columnTypes(kind);
  const mysqlTable = mysqlTableOptions(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("arbor_asks")
        .addColumn("id", t.sessionId, (c) => c.notNull().primaryKey())
        .addColumn("session_id", t.sessionId, (c) => c.notNull())
        .addColumn("created_at", t.time, (c) => c.notNull())
        .addColumn("data", t.json, (c) => c.notNull())
        .addColumn("answer", t.json)
        .$call(mysqlTable)
        .execute();
      await db.schema.createIndex("arbor_asks_session").on("arbor_asks").columns(["session_id", "created_at"]).execute();
    },
  };
}

/** API tokens, hashed: looked up by hash on each request, listed and revoked by id. */
function tokens(kind: SqlKind): Migration {
  const t = columnTypes(kind);
  const mysqlTable = mysqlTableOptions(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("arbor_tokens")
        .addColumn("id", t.entryId, (c) => c.notNull().primaryKey())
        .addColumn("hash", t.short, (c) => c.notNull())
        .addColumn("created_at", t.time, (c) => c.notNull())
        .addColumn("data", t.json, (c) => c.notNull())
        .addColumn("revoked_at", t.time)
        .$call(mysqlTable)
        .execute();
      await db.schema.createIndex("arbor_tokens_hash").on("arbor_tokens").columns(["hash"]).unique().execute();
    },
  };
}

/**
 * SQLite only: entries keyed by `seq` as the table's own integer key (its rowid), which SQLite
 * assigns in append order across the whole database, with a unique index on (session, id). An
 * append then writes two b-trees instead of three: the (session, seq) index went, and with it one
 * page of every commit. A session's entries still read in append order (`seq` only grows). Existing
 * rows are copied in their old order. Kysely runs SQLite migrations outside a transaction, so this
 * one is its own transaction, and is skipped when the table already has this shape (a crash after
 * its commit but before Kysely recorded it).
 */
function entriesByRowid(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`begin immediate`.execute(db);
      try {
        const { rows } = await sql<{ name: string; pk: number }>`pragma table_info(arbor_entries)`.execute(db);
        if (!rows.some((c) => c.name === "seq" && c.pk === 1)) {
          await sql`create table arbor_entries_by_seq (
            seq integer primary key,
            session_id text not null,
            id text not null,
            parent_id text,
            type text not null,
            timestamp text not null,
            data text not null
          )`.execute(db);
          await sql`insert into arbor_entries_by_seq (session_id, id, parent_id, type, timestamp, data)
            select session_id, id, parent_id, type, timestamp, data from arbor_entries order by session_id, seq`.execute(db);
          await sql`drop table arbor_entries`.execute(db);
          await sql`alter table arbor_entries_by_seq rename to arbor_entries`.execute(db);
          await sql`create unique index arbor_entries_id on arbor_entries (session_id, id)`.execute(db);
        }
        await sql`commit`.execute(db);
      } catch (err) {
        await sql`rollback`.execute(db).catch(() => undefined);
        throw err;
      }
    },
  };
}

/**
 * SQLite only: `tail_seq` marks a session row that a lease holder stopped rewriting on every append
 * (see sqlite-session-tail.ts). Null, as every existing row gets, means the row is exact. Skipped
 * when the column is already there (a crash after the change but before Kysely recorded it).
 */
function sessionTail(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const { rows } = await sql<{ name: string }>`pragma table_info(arbor_sessions)`.execute(db);
      if (!rows.some((c) => c.name === "tail_seq")) await sql`alter table arbor_sessions add column tail_seq integer`.execute(db);
    },
  };
}

/** Every schema version, in order. Names sort in application order; never rename or edit one that shipped. */
export function sqlMigrations(kind: SqlKind): Record<string, Migration> {
  return {
    "0001_sessions_entries": sessionsAndEntries(kind),
    "0002_events": events(kind),
    "0003_leases": leases(kind),
    "0004_session_cwd": sessionCwd(kind),
    "0005_asks": asks(kind),
    "0006_tokens": tokens(kind),
    ...(kind === "sqlite" ? { "0007_sqlite_entries_by_rowid": entriesByRowid(), "0008_sqlite_session_tail": sessionTail() } : {}),
  };
}

/** Brings the schema to the latest version; concurrent opens are serialized by Kysely's migration lock. */
export async function migrateToLatest(db: Kysely<unknown>, kind: SqlKind, schema?: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => sqlMigrations(kind) };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ArborError(
      "io_error",
      `Could not bring the ${kind} store schema up to date${failed ? ` (migration ${failed})` : ""}: ${reason}`,
      { cause: reason },
    );
  }
}
