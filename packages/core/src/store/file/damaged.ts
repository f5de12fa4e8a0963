import { statSync } from "node:fs";
import { join } from "node:path";
import type { ArborError } from "../../errors.js";
import { SessionIdSchema } from "../../model/ids.js";
import type { SessionMeta } from "../../model/session.js";
import { newSessionMeta } from "../session-meta.js";
import type { SessionDirs } from "./session-dir.js";

/**
 * How a session that cannot be opened is listed: its last recorded meta when session.json still
 * reads, else a stand-in with its id and the folder's time; `damaged` says what is wrong. A folder
 * whose name is no session id is not a session and is left out.
 */
export function damagedMeta(dirs: SessionDirs, name: string, err: ArborError): SessionMeta | undefined {
  if (!SessionIdSchema.safeParse(name).success) return undefined;
  let problem = err.message;
  try {
    const found = dirs.readMeta(name);
    if (found) return { ...found.meta, damaged: problem };
  } catch (metaErr) {
    problem = (metaErr as Error).message;
  }
  const time = new Date(statSync(join(dirs.root, name), { throwIfNoEntry: false })?.mtimeMs ?? 0).toISOString();
  return { ...newSessionMeta(undefined, "file", name, time), damaged: problem };
}
