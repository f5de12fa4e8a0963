import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/store/sql/sqlite-checkpointer.js";
import { tempDir } from "./loop/harness.js";

// A file-backed SQLite store copies its WAL into the database from a worker thread: its own connection
// then checkpoints only as a backstop, so no commit of a run stalls on a checkpoint.

/** A WAL database with one table, as the store makes it (8 KiB pages). */
function walDatabase(file: string): Database.Database {
  const db = new Database(file);
  db.pragma("page_size = 8192");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("create table t (id integer primary key, body text)");
  return db;
}

const autocheckpoint = (db: Database.Database) => db.pragma("wal_autocheckpoint", { simple: true });

describe("SQLite checkpoints off the store's thread", () => {
  const open: Array<{ db: Database.Database; checkpointer: SqliteCheckpointer }> = [];
  afterEach(async () => {
    for (const { db, checkpointer } of open.splice(0)) {
      await checkpointer.close();
      db.close();
    }
  });

  it("copies the WAL into the database from the worker, the store's connection checkpointing only past the backstop", async () => {
    const file = join(tempDir(), "arbor.db");
    const db = walDatabase(file);
    const checkpointer = new SqliteCheckpointer(db, file, 0);
    open.push({ db, checkpointer });
    expect(await checkpointer.started).toBe(true);
    expect(autocheckpoint(db)).toBe(8000);
    // About 2,000 pages: past SQLite's default autocheckpoint (1,000), short of the backstop (8,000),
    // so only the worker can have copied them into the database file.
    const insert = db.prepare("insert into t (body) values (?)");
    const body = "x".repeat(4000);
    for (let i = 0; i < 40; i++)
      db.transaction(() => {
        for (let j = 0; j < 100; j++) insert.run(body);
      })();
    const pages = db.pragma("page_count", { simple: true }) as number;
    expect(pages).toBeGreaterThan(1500);
    await expect.poll(() => statSync(file).size).toBeGreaterThanOrEqual(pages * 8192);
  });

  it("gives the store's connection its default autocheckpoint back when the worker cannot run", async () => {
    const dir = tempDir();
    const file = join(dir, "arbor.db");
    const db = walDatabase(file);
    // The worker opens a database that must exist: pointed elsewhere, it fails at once.
    const checkpointer = new SqliteCheckpointer(db, join(dir, "missing.db"), 0);
    open.push({ db, checkpointer });
    expect(await checkpointer.started).toBe(false);
    expect(autocheckpoint(db)).toBe(1000);
  });

  it("starts no worker for a store closed before its start", async () => {
    const file = join(tempDir(), "arbor.db");
    const db = walDatabase(file);
    const checkpointer = new SqliteCheckpointer(db, file);
    await checkpointer.close();
    db.close();
    expect(await Promise.race([checkpointer.started, Promise.resolve("not started")])).toBe("not started");
  });
});
