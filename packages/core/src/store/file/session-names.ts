import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";

/** A create or delete takes milliseconds; a `.tmp-`/`.trash-` directory this old was left by a crash. */
const LEFTOVER_AGE_MS = 10 * 60_000;

/**
 * Makes the `sessions` directory of a file store and sweeps what crashes left in it: what opening a
 * file store does before anything is read, apart from the modules that read and validate sessions.
 */
export function initSessionsRoot(root: string): void {
  try {
    mkdirSync(root, { recursive: true });
  } catch (err) {
    throw new ArborError("io_error", `Cannot create the store directory ${root}: ${(err as Error).message}`);
  }
  // Leftovers of a create or delete that a crash interrupted; never a live session. Another
  // process may be building its session in a `.tmp-` directory right now (the store is shared by
  // every process on it), so only directories nobody has touched for a while are swept: removing a
  // live one would leave that process a session directory without its session.json.
  const before = Date.now() - LEFTOVER_AGE_MS;
  for (const name of readdirSync(root)) {
    if (!name.startsWith(".tmp-") && !name.startsWith(".trash-")) continue;
    const path = join(root, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (st && st.mtimeMs < before) rmSync(path, { recursive: true, force: true });
  }
}

/** The sessions under a file store's `sessions` directory: one directory each; `.tmp-`/`.trash-` ones are not sessions. */
export function sessionNames(root: string): string[] {
  return readdirSync(root).filter((n) => !n.startsWith("."));
}
