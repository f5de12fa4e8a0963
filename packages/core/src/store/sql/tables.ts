import type { Generated } from "kysely";

/**
 * The SQL layout. `data` holds the whole SessionMeta / Entry JSON so a read is one column and new
 * fields need no migration; the other columns are copies kept only for keys, ordering and the
 * recursive active-path query.
 */
export interface SessionsTable {
  id: string;
  created_at: string;
  updated_at: string;
  parent_session_id: string | null;
  /** The session's workspace, copied from its meta for filtering; null when it has none. */
  cwd: string | null;
  leaf_entry_id: string | null;
  root_entry_id: string | null;
  data: string;
  /** Sequence number the next appended entry gets; read and bumped under the session's row lock. */
  next_seq: number;
  /**
   * SQLite only (no such column on MySQL or PostgreSQL): null when the row is exact; else the `seq`
   * of the last entry the row counts, and entries of the session after it may be newer than the row
   * (see sqlite-session-tail.ts). Only the prepared SQLite statements read or write it.
   */
  tail_seq?: number | null;
}

export interface EntriesTable {
  session_id: string;
  id: string;
  /**
   * Append order within the session (listEntries order). SQLite assigns it (the table's integer key,
   * rising across the database); MySQL and PostgreSQL get the session's `next_seq`.
   */
  seq: Generated<number>;
  parent_id: string | null;
  type: string;
  timestamp: string;
  data: string;
}

/** A session's event log: `event_id` increases strictly per session, so a reader resumes after the last id it saw. */
export interface EventsTable {
  session_id: string;
  event_id: number;
  type: string;
  timestamp: string;
  data: string;
}

/** Who drives a session (see `Store.acquireLease`); the row exists while the lease is held. */
export interface LeasesTable {
  session_id: string;
  token: string;
  /** The holder as JSON: pid, host, purpose, since, token. */
  holder: string;
  /** Ms since the epoch; each heartbeat moves it on. A bigint column, so drivers may return a string. */
  expires_at: number | string;
}

/** Asks runs wait on (see `AskRecord`); `answer` is null until the one answer lands. */
export interface AsksTable {
  id: string;
  session_id: string;
  created_at: string;
  /** The ask as JSON (without its answer). */
  data: string;
  /** The answer as JSON; set once, by an update that only matches while it is null. */
  answer: string | null;
}

/** API tokens (see `TokenRecord`): the hash has a unique index, the token itself is never stored. */
export interface TokensTable {
  id: string;
  hash: string;
  created_at: string;
  /** The record as JSON, without `revokedAt`. */
  data: string;
  revoked_at: string | null;
}

export interface ArborDatabase {
  arbor_sessions: SessionsTable;
  arbor_entries: EntriesTable;
  arbor_events: EventsTable;
  arbor_leases: LeasesTable;
  arbor_asks: AsksTable;
  arbor_tokens: TokensTable;
}

export type SqlKind = "sqlite" | "mysql" | "postgres";

export const MIGRATION_TABLE = "arbor_migrations";
export const MIGRATION_LOCK_TABLE = "arbor_migrations_lock";
