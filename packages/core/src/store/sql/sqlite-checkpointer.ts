import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";

/**
 * WAL frames after which the store's own connection checkpoints (SQLite's default is 1,000) while the
 * worker runs: a backstop for a worker that falls behind, not the usual way.
 */
const BACKSTOP_PAGES = 8_000;
/** SQLite's default autocheckpoint, put back when the worker ends. */
const DEFAULT_PAGES = 1_000;
/**
 * How often the worker looks for WAL writes to copy. A checkpoint copies each page written since the
 * last once, however often it was rewritten, and syncs the database file: a busy session rewrites the
 * same few pages (the entries' last leaf, the id index's, the session row's) at every commit, so looking
 * less often copies and syncs less. At 200 ms the loop bench's SQLite rows spent 35-52 µs a step on
 * threads other than the main one against 67-79 at 20 ms (three alternating rounds, 40 warm-ups). The
 * WAL's size is bounded by the backstop either way: a writer that never pauses keeps it from starting
 * over, and in that bench it reached ~64 MB at 20 ms as at 200.
 */
const LOOK_MS = 200;
/** A store used for less than this never starts the worker (a CLI command's store, say). */
const START_AFTER_MS = 500;

/**
 * Moves a file-backed SQLite store's checkpoints off its thread. SQLite copies the WAL into the
 * database when a commit finds 1,000 frames in it, inside that commit: every ~75 steps of the agent
 * loop one commit took ~10 ms (8 MB copied, the database fsynced), stalling every run and stream of
 * the process. Turning checkpoints off is no answer (a WAL that only grows makes every commit slower),
 * so a worker thread with a connection of its own copies the WAL every LOOK_MS when it was written,
 * keeping it short, and the store's connection checkpoints only past BACKSTOP_PAGES.
 *
 * The worker starts START_AFTER_MS after the store opened, so a short-lived store costs no thread. It
 * is unref'd (it never keeps a process alive), and if it fails the store's connection takes back the
 * default autocheckpoint. Durability is SQLite's own: a checkpoint from another connection copies only
 * committed frames, and syncs as the `synchronous` setting of its connection (NORMAL) says.
 */
export class SqliteCheckpointer {
  private worker: Worker | undefined;
  /** Settles when the worker has exited (at once when none was started). */
  private exited: Promise<void> = Promise.resolve();
  private readonly timer: ReturnType<typeof setTimeout>;
  private closed = false;
  private settle: (running: boolean) => void = () => {};
  /** Settles once the worker runs (true) or could not start (false); never when it was not started. */
  readonly started = new Promise<boolean>((resolve) => {
    this.settle = resolve;
  });

  constructor(
    private readonly handle: BetterSqlite3.Database,
    private readonly file: string,
    startAfterMs = START_AFTER_MS,
  ) {
    this.timer = setTimeout(() => this.start(), startAfterMs);
    this.timer.unref();
  }

  private start(): void {
    if (this.closed) return;
    const worker = new Worker(workerFile(), {
      workerData: { file: this.file, intervalMs: LOOK_MS },
    });
    worker.unref();
    this.worker = worker;
    this.exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.on("message", (message: unknown) => {
      if (message !== "ready") return;
      if (!this.closed && this.handle.open) this.handle.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
      this.settle(true);
    });
    const ended = () => {
      this.settle(false);
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (!this.closed && this.handle.open) this.handle.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    };
    // A worker that cannot open the database (deleted meanwhile, say) only leaves checkpoints where they were.
    worker.on("error", ended);
    worker.on("exit", ended);
  }

  /**
   * Stops the worker before the store's own connection closes. Terminating it is safe: a worker stops
   * only between JavaScript calls (a checkpoint in progress ends first), and better-sqlite3 closes a
   * worker's connections when the worker goes. It is not asked to close itself, which would make a
   * store closed while its worker is still starting wait for that start.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.worker?.terminate();
    await this.exited;
  }
}

/** The worker's module: the built one beside this file, or its source where this file runs as source (tests). */
function workerFile(): URL {
  const built = new URL("./sqlite-checkpoint-worker.js", import.meta.url);
  return existsSync(fileURLToPath(built)) ? built : new URL("./sqlite-checkpoint-worker.ts", import.meta.url);
}
