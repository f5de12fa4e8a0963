import { readFile } from "node:fs/promises";
import type { OpenCodeRows } from "@arbor/core/interop";
import { ArborError } from "@arbor/core/open";

/**
 * The session rows of an OpenCode 2.x database, read-only (OpenCode may be running). Only the two
 * session tables are read; a database without them is not one Arbor can import.
 */
export async function readOpenCodeDatabase(path: string): Promise<OpenCodeRows> {
  const { default: Database } = await import("better-sqlite3");
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new ArborError(
      "invalid_input",
      `Cannot open ${path} as a SQLite database (${(err as Error).message}). Give OpenCode's opencode.db.`,
    );
  }
  try {
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
    );
    if (!tables.has("session_v2") || !tables.has("session_message")) {
      throw new ArborError(
        "invalid_input",
        `${path} is not an OpenCode 2.x database (it has no session_v2 and session_message tables); older OpenCode stores are not supported.`,
      );
    }
    return {
      sessions: db.prepare("SELECT * FROM session_v2 ORDER BY time_created, id").all(),
      messages: db.prepare("SELECT * FROM session_message ORDER BY session_id, seq").all(),
    };
  } catch (err) {
    if (err instanceof ArborError) throw err;
    throw new ArborError("invalid_input", `Cannot read ${path} as an OpenCode database (${(err as Error).message}).`);
  } finally {
    db.close();
  }
}

/** A dump of those tables, one `{"table": …, "row": {…}}` object a line. */
export async function readOpenCodeRows(path: string): Promise<OpenCodeRows> {
  const rows: OpenCodeRows = { sessions: [], messages: [] };
  for (const line of (await readFile(path, "utf8")).split("\n")) {
    if (!line.trim()) continue;
    let v: { table?: unknown; row?: unknown };
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      continue;
    }
    if (v.table === "session_v2") rows.sessions.push(v.row);
    else if (v.table === "session_message") rows.messages.push(v.row);
  }
  return rows;
}
