import type { Insertable } from "kysely";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import { migrateEntry, migrateSessionMeta } from "../../session/migrate.js";
import type { EntriesTable } from "./tables.js";

/**
 * Rows hold JSON the store wrote itself, so reads parse without re-validating (the hot paths would
 * otherwise pay a schema check per entry); a row that is not JSON at all means the table was
 * edited by hand and is reported as corrupt rather than crashing the caller.
 */
function parseJson(data: string, what: string): unknown {
  try {
    return JSON.parse(data);
  } catch (err) {
    throw new ArborError(
      "corrupt_session",
      `${what} is not valid JSON (${(err as Error).message}); restore it from a backup or delete it.`,
    );
  }
}

/** A session's row as its meta; one written by a newer Arbor is `unsupported_version`, not misread. */
export function parseSessionRow(data: string, id: string): SessionMeta {
  const what = `The stored meta of session ${id}`;
  return migrateSessionMeta(parseJson(data, what), what) as SessionMeta;
}

/** Older sessions' rows are read in today's shape (renamed entry types), as the file store reads its lines. */
export function parseEntryRow(data: string, sessionId: string): Entry {
  return migrateEntry(parseJson(data, `An entry of session ${sessionId}`)) as Entry;
}

/** The session columns that mirror fields of its JSON; written together so they never disagree. */
export function sessionColumns(meta: SessionMeta) {
  return {
    updated_at: meta.updatedAt,
    cwd: meta.cwd ?? null,
    leaf_entry_id: meta.leafEntryId,
    root_entry_id: meta.rootEntryId,
    data: JSON.stringify(meta),
  };
}

export function sessionNotFound(id: string): ArborError {
  return new ArborError("session_not_found", `Session ${id} does not exist.`);
}

export function entryNotFound(sessionId: string, entryId: string): ArborError {
  return new ArborError("entry_not_found", `Entry ${entryId} does not exist in session ${sessionId}.`);
}

export function sessionExists(id: string): ArborError {
  return new ArborError("session_exists", `Session ${id} already exists; choose another id, or omit it to get a fresh one.`);
}

/** The row of an entry; `seq` undefined lets the database assign it (SQLite, see EntriesTable). */
export function entryRow(sessionId: string, entry: Entry, json: string, seq: number | undefined): Insertable<EntriesTable> {
  return {
    session_id: sessionId,
    id: entry.id,
    ...(seq === undefined ? {} : { seq }),
    parent_id: entry.parentId,
    type: entry.type,
    timestamp: entry.timestamp,
    data: json,
  };
}
