// SQLite's own cost of an append under the lease, without Arbor: better-sqlite3 alone runs, on a
// database Arbor made (its schema, pragmas and 50k entries), the statements Arbor's SQLite append
// runs in one IMMEDIATE transaction: the lease row read (the fence) and the entry's insert, and the
// session row's update when Arbor's holder rewrites it (once its entries are TAIL_SPAN rows past the
// row's tail, see sqlite-session-tail.ts). What a row of A1 spends above this is Arbor's own work
// (checks, JSON, ids); what this costs is the commit itself: its WAL frames and the WAL's locks.
import Database from "better-sqlite3";
import { summarize, us } from "../lib/stats.mjs";

/** `n` timed appends (after `warmup`) to session `sessionId` of the database file `file`. */
export function sqliteFloor(file, sessionId, { warmup = 500, n = 5000, tailSpan = 256 } = {}) {
  const db = new Database(file, { timeout: 5000 });
  try {
    // As the store sets them on every connection (page size and WAL belong to the file already).
    db.pragma("synchronous = NORMAL");
    db.pragma("secure_delete = ON");
    const lease = db.prepare("select holder, expires_at, token from arbor_leases where session_id = ?");
    const insert = db.prepare(
      "insert into arbor_entries (session_id, id, parent_id, type, timestamp, data) values (?, ?, ?, ?, ?, ?)",
    );
    const update = db.prepare(
      "update arbor_sessions set updated_at = ?, leaf_entry_id = ?, root_entry_id = ?, data = ?, next_seq = ?, tail_seq = ? where id = ?",
    );
    const row = db.prepare("select data, next_seq, leaf_entry_id, root_entry_id from arbor_sessions where id = ?").get(sessionId);
    const meta = JSON.parse(row.data);
    let seq = row.next_seq;
    let leaf = row.leaf_entry_id;
    let tail = -Infinity;
    const text = "x".repeat(300);
    const append = db.transaction((i) => {
      lease.get(sessionId);
      const id = (0x10000000_00000000n + BigInt(i) * 0x9e3779b97f4a7c1n).toString(16).slice(-16);
      const timestamp = new Date().toISOString();
      const entry = {
        type: "message",
        message: { role: "user", content: [{ type: "text", text }] },
        id,
        parentId: leaf,
        timestamp,
      };
      const rowid = Number(insert.run(sessionId, id, leaf, "message", timestamp, JSON.stringify(entry)).lastInsertRowid);
      leaf = id;
      seq++;
      if (rowid <= tail + tailSpan) return;
      tail = rowid;
      update.run(
        timestamp,
        leaf,
        row.root_entry_id,
        JSON.stringify({ ...meta, updatedAt: timestamp, leafEntryId: leaf }),
        seq,
        tail,
        sessionId,
      );
    });
    for (let i = 0; i < warmup; i++) append.immediate(i);
    const sample = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      append.immediate(warmup + i);
      sample.push(us(t0, process.hrtime.bigint()));
    }
    return summarize(sample);
  } finally {
    db.close();
  }
}
