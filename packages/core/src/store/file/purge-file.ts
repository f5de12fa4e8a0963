import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import { type PurgeMark, tombstoneOf } from "../../session/purge-entry.js";
import { syncDir } from "./atomic-write.js";
import { INDEX_HEADER } from "./entry-index.js";
import type { OpenSession, OpenSessions } from "./open-sessions.js";
import { updateRecord } from "./records.js";
import { closeSource, loadSessionState } from "./session-state.js";

/** Where the purged copy of entries.jsonl is written before it replaces the file. */
const PURGE_SUFFIX = ".purging";

/**
 * Erases entries from a session's entries.jsonl: the file is rewritten with each listed entry's
 * lines (its own and every `update` record of it) replaced by its tombstone, and the index rebuilt.
 * The caller is the session's writer (`SessionWrites.locked`: the lease holder, or under the write
 * lock), so no append lands while the file is replaced.
 *
 * An erasure is always made durable (fsync), whatever the store's durability setting.
 *
 * Crash safety: the new content goes to `entries.jsonl.purging` (fsynced), entries.idx is removed,
 * and only then is the copy renamed over entries.jsonl (an atomic rename, then the directory is
 * fsynced). A crash before the rename leaves entries.jsonl whole and untouched, and at most the
 * `.purging` copy, which holds no erased content and is removed by the next purge; a crash after it
 * leaves the purged file, which a load reads whole because its index is gone (a stale index could
 * point at offsets the shorter lines moved). No reader ever sees a half-written entries.jsonl.
 */
export function purgeSessionFile(
  s: OpenSession,
  sessions: OpenSessions,
  indexFile: string,
  ids: readonly string[],
  mark: PurgeMark,
): Entry[] {
  const state = sessions.whole(s);
  const tombstones = new Map<string, Entry>();
  for (const id of ids) {
    const i = state.index.get(id);
    if (i === undefined) throw new ArborError("entry_not_found", `Entry ${id} does not exist in session ${s.id}.`);
    tombstones.set(id, tombstoneOf(state.entries[i]!, mark));
  }
  const file = state.source.file;
  // Only whole records are kept: a torn tail past them is an unfinished write, never part of the session.
  const text = readFileSync(file).subarray(0, state.bytes).toString("utf8");
  const lines = text.split("\n");
  for (const [n, line] of lines.entries()) {
    const replaced = purgedLine(line, tombstones);
    if (replaced !== undefined) lines[n] = replaced;
  }
  const tmp = `${file}${PURGE_SUFFIX}`;
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, "w");
  try {
    writeSync(fd, lines.join("\n"));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // The old index would place entries at offsets the rewrite moved: it goes before the file is replaced.
  s.index.close();
  rmSync(indexFile, { force: true });
  renameSync(tmp, file);
  syncDir(dirname(file));
  // The append handle and the read handle point at the replaced file: both are reopened on next use.
  if (s.fd !== null) closeSync(s.fd);
  s.fd = null;
  s.sync = null;
  closeSource(state);
  const fresh = loadSessionState(file, state.meta);
  s.index.rewrite(INDEX_HEADER + fresh.unindexed.join(""));
  fresh.unindexed = [];
  s.state = fresh;
  // session.json counts the bytes of the new file, so the next load (here or elsewhere) trusts it and the index.
  sessions.writeMeta(s);
  return [...tombstones.values()];
}

/** The line with its entry replaced by the tombstone, or undefined when the line is not one of them. */
function purgedLine(line: string, tombstones: ReadonlyMap<string, Entry>): string | undefined {
  if (line === "") return undefined;
  let record: { id?: unknown; $op?: unknown; entry?: { id?: unknown } };
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (record === null || typeof record !== "object") return undefined;
  if (record.$op === "update") {
    const tomb = typeof record.entry?.id === "string" ? tombstones.get(record.entry.id) : undefined;
    return tomb ? updateRecord(JSON.stringify(tomb)).slice(0, -1) : undefined;
  }
  const tomb = record.$op === undefined && typeof record.id === "string" ? tombstones.get(record.id) : undefined;
  return tomb ? JSON.stringify(tomb) : undefined;
}
