// The worker thread of a SQLite store's checkpointer (see sqlite-checkpointer.ts): its own connection to
// the database copies the WAL into it whenever the WAL was written since the last look.
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const port = parentPort;
if (!port) throw new Error("sqlite-checkpoint-worker runs as a worker thread");

const db = new Database(file, { timeout: 5000, fileMustExist: true });
const wal = `${file}-wal`;
let seen = "";

const look = (): void => {
  // A WAL write moves its mtime (or size): nothing written since the last look, nothing to copy.
  const st = statSync(wal, { throwIfNoEntry: false });
  const stamp = st ? `${st.mtimeMs}:${st.size}` : "";
  if (stamp === seen) return;
  seen = stamp;
  try {
    // PASSIVE never waits for the store's writer nor makes it wait: it copies what is committed.
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or gone: the next look tries again, and the store's own autocheckpoint is the backstop.
  }
};

// Ended by the store with `terminate`, which better-sqlite3 answers by closing `db`.
setInterval(look, intervalMs);
port.postMessage("ready");
