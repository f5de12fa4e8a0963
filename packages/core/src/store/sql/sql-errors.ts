import { ArborError } from "../../errors.js";
import type { SqlKind } from "./tables.js";

/** A primary-key or unique-index clash, as each driver reports it. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "ER_DUP_ENTRY" || // mysql2
    code === "23505" // PostgreSQL unique_violation
  );
}

/**
 * Driver failures (connection refused, lock timeout, disk full…) leave the store as ArborErrors so
 * callers branch on one type; the driver's message and code are kept for whoever debugs it.
 */
export function toArborError(err: unknown, kind: SqlKind, what: string): ArborError {
  if (err instanceof ArborError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  // node-postgres takes the user from the URL, else PGUSER, else USER; a container often has none.
  if (kind === "postgres" && /no PostgreSQL user name specified/.test(message)) {
    return new ArborError(
      "invalid_store_spec",
      "The postgres store URL names no user, and neither PGUSER nor USER is set: put one in the URL (postgres://<user>@<host>:<port>/<database>).",
      { cause: message },
    );
  }
  return new ArborError(
    "io_error",
    `The ${kind} store failed to ${what}: ${message}. Check that the database is reachable and that the store spec points at it.`,
    { cause: message, ...(typeof code === "string" || typeof code === "number" ? { driverCode: code } : {}) },
  );
}
