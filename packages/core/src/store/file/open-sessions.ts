import { closeSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import type { SessionMeta } from "../../model/session.js";
import type { Durability } from "../spec.js";
import { INDEX_HEADER, IndexTable, IndexWriter, readIndexBytes, readRecord } from "./entry-index.js";
import { GroupFsync } from "./group-fsync.js";
import { RecordBuffer } from "./record-buffer.js";
import type { SessionDirs } from "./session-dir.js";
import { closeSource, emptyState, loadIndexedState, loadSessionState, type SessionState } from "./session-state.js";

export interface OpenSession {
  id: string;
  state: SessionState;
  fd: number | null;
  sync: GroupFsync | null;
  /** Derived meta (leaf, totals) changed since session.json was last written. */
  dirty: boolean;
  /** session.json as last read or written here: another process's rewrite changes it. */
  metaStamp: string;
  /** Writes entries.idx; only from a writer of the session (lease holder, or under the write lock). */
  index: IndexWriter;
  /**
   * The write-lock burst in which this session was last checked against the disk: while that burst
   * lasts no other process can have written it (see write-burst.ts).
   */
  burst?: number;
}

/**
 * The file store's sessions held in memory, least recently used dropped first, each with its append
 * handle. A session that another process may write is checked against the disk before it is used.
 */
export class OpenSessions {
  readonly cache = new Map<string, OpenSession>();
  private readonly loading = new Map<string, Promise<OpenSession>>();
  /** Where appends are encoded before they are written (see record-buffer.ts). */
  private readonly out: RecordBuffer;

  constructor(
    private readonly dirs: SessionDirs,
    private readonly opts: {
      durability: Durability;
      cacheSize: number;
      /** True while the loaded session is known to match the disk, or is in use and must not be dropped. */
      settled: (id: string) => boolean;
      /** True while this store holds the session's lease. */
      leased: (id: string) => boolean;
      /** The store's encode buffer, shared with its event log (see record-buffer.ts). */
      encode: Buffer;
      /** entries.jsonl bytes from which a session keeps entries.idx (see DEFAULT_INDEX_FROM_BYTES). */
      indexFromBytes: number;
    },
  ) {
    this.out = new RecordBuffer(opts.encode);
  }

  /**
   * Whether a loaded session still matches the disk. Only checked when this store does not hold the
   * session's lease: another process may then have appended or rewritten session.json.
   */
  isFresh(s: OpenSession): boolean {
    return this.dirs.entriesSize(s.id) === s.state.bytes + s.state.tornBytes && this.dirs.metaStamp(s.id) === s.metaStamp;
  }

  /** Forgets a loaded session without writing anything back (the disk is newer). */
  drop(s: OpenSession): void {
    s.index.close();
    closeSource(s.state);
    if (s.fd !== null) closeSync(s.fd);
    s.fd = null;
    s.sync = null;
    if (this.cache.get(s.id) === s) this.cache.delete(s.id);
  }

  current(id: string): OpenSession | undefined {
    const cached = this.cache.get(id);
    if (!cached || this.opts.settled(id) || this.isFresh(cached)) return cached;
    this.drop(cached);
    return undefined;
  }

  /** A session whose directory was just created with an empty entries file: nothing to read back. */
  created(id: string, meta: SessionMeta): void {
    const state = emptyState(meta, this.dirs.entriesFile(id));
    const index = new IndexWriter(this.dirs.indexFile(id), 0, this.opts.indexFromBytes);
    this.cache.set(id, { id, state, index, fd: null, sync: null, dirty: false, metaStamp: this.dirs.metaStamp(id) });
    this.evict();
  }

  /** Marks a loaded session as the most recently used. */
  touch(s: OpenSession): OpenSession {
    this.cache.delete(s.id);
    this.cache.set(s.id, s);
    return s;
  }

  load(id: string): Promise<OpenSession> {
    const cached = this.current(id);
    if (cached) return Promise.resolve(this.touch(cached));
    let pending = this.loading.get(id);
    if (!pending) {
      pending = Promise.resolve().then(() => {
        try {
          const found = this.dirs.readMeta(id);
          if (!found) throw new ArborError("session_not_found", `Session ${id} does not exist.`);
          const metaStamp = this.dirs.metaStamp(id);
          const session: OpenSession = { id, fd: null, sync: null, dirty: false, metaStamp, ...this.readState(id, found) };
          session.dirty = session.state.bytes !== found.entriesBytes;
          this.cache.set(id, session);
          this.evict();
          return session;
        } finally {
          this.loading.delete(id);
        }
      });
      this.loading.set(id, pending);
    }
    return pending;
  }

  /**
   * Reads a session through its index when the index checks out against entries.jsonl and
   * session.json counts everything it covers (a run's end writes both); otherwise reads the entries
   * whole, and then sets the index right: kept when it is a prefix of what it should hold, else rewritten.
   */
  private readState(id: string, found: { meta: SessionMeta; entriesBytes: number }): Pick<OpenSession, "state" | "index"> {
    const file = this.dirs.entriesFile(id);
    const indexFile = this.dirs.indexFile(id);
    const bytes = readIndexBytes(indexFile);
    const parsed = bytes.length === 0 ? null : IndexTable.parse(bytes);
    if (
      parsed?.last &&
      parsed.covered <= found.entriesBytes &&
      found.entriesBytes <= this.dirs.entriesSize(id) &&
      lastRecordMatches(file, parsed)
    ) {
      return {
        state: loadIndexedState(file, found.meta, parsed, found.entriesBytes),
        index: new IndexWriter(indexFile, bytes.length, this.opts.indexFromBytes),
      };
    }
    const state = loadSessionState(file, found.meta);
    const whole = INDEX_HEADER + state.unindexed.join("");
    const text = bytes.toString("latin1");
    const index = new IndexWriter(indexFile, text.length, this.opts.indexFromBytes);
    // A missing or wrong index is replaced at once (by rename, so a writer elsewhere only loses lines a
    // load completes); a small session's missing one is left missing, its lines handed to the writer
    // that makes it once the session grows past indexFromBytes.
    if (text.length === 0 && found.entriesBytes < this.opts.indexFromBytes) return { state, index };
    if ((text.length > 0 || whole.length === 0) && whole.startsWith(text))
      state.unindexed = whole.length > text.length ? [whole.slice(text.length)] : [];
    else {
      index.rewrite(whole);
      state.unindexed = [];
    }
    return { state, index };
  }

  /** The session with every entry in memory: one resumed through its index is read whole now. */
  whole(s: OpenSession): SessionState & { entries: Entry[] } {
    if (!s.state.entries) {
      const state = loadSessionState(s.state.source.file, s.state.meta);
      // The index already holds what the whole read found, but for the lines not yet handed to its writer.
      state.unindexed = s.state.unindexed;
      closeSource(s.state);
      s.state = state;
    }
    return s.state as SessionState & { entries: Entry[] };
  }

  /** Hands new index lines to the writer and writes them; called only by a writer of the session. */
  flushIndex(s: OpenSession): void {
    for (const line of s.state.unindexed) s.index.add(line);
    s.state.unindexed = [];
    s.index.flush(s.state.bytes);
  }

  evict(): void {
    for (const [id, s] of this.cache) {
      if (this.cache.size <= this.opts.cacheSize) return;
      if (this.opts.settled(id)) continue;
      this.release(s);
      this.cache.delete(id);
    }
  }

  /** Write back derived meta if needed (and nobody wrote the session since) and close the append handle. */
  release(s: OpenSession): void {
    if (s.dirty && (this.opts.leased(s.id) || this.isFresh(s))) this.writeMeta(s);
    else if (this.opts.leased(s.id)) this.flushIndex(s);
    s.index.close();
    closeSource(s.state);
    if (s.fd !== null) closeSync(s.fd);
    s.fd = null;
    s.sync = null;
  }

  writeMeta(s: OpenSession): void {
    // The index first: session.json then counts at least what the index covers, so the next load may use it.
    this.flushIndex(s);
    this.dirs.writeMeta(s.state.meta, s.state.bytes);
    s.metaStamp = this.dirs.metaStamp(s.id);
    s.dirty = false;
  }

  appendHandle(s: OpenSession): number {
    if (s.fd === null) {
      const fd = this.dirs.openForAppend(s.id, s.state.bytes, s.state.tornBytes);
      s.state.tornBytes = 0;
      s.fd = fd;
      s.sync = this.opts.durability === "fsync" ? new GroupFsync(fd) : null;
      return fd;
    }
    return s.fd;
  }

  /**
   * Writes records at the end of entries.jsonl. The bytes reach the OS before this returns; a
   * failed write is cut back off so no partial record stays behind. Returns the byte length written.
   */
  writeRecords(s: OpenSession, text: string): { length: number; synced: Promise<void> | null } {
    const { bytes, headEnd: length } = this.out.encode(text, []);
    return { length, synced: this.writeBytes(s, bytes, length) };
  }

  /**
   * Writes entry lines (after a batch header when `head` is not empty) at the end of entries.jsonl,
   * as `writeRecords`; returns where the first line starts and each line's byte length, for the index.
   */
  writeEntryLines(
    s: OpenSession,
    head: string,
    lines: readonly string[],
  ): { offset: number; lengths: number[]; synced: Promise<void> | null } {
    const { bytes, headEnd, ends } = this.out.encode(head, lines);
    const offset = s.state.bytes + headEnd;
    const lengths: number[] = new Array(ends.length);
    for (let i = 0, start = headEnd; i < ends.length; i++) {
      lengths[i] = (ends[i] as number) - start;
      start = ends[i] as number;
    }
    const synced = this.writeBytes(s, bytes, ends.length > 0 ? (ends[ends.length - 1] as number) : headEnd);
    return { offset, lengths, synced };
  }

  private writeBytes(s: OpenSession, bytes: Buffer, length: number): Promise<void> | null {
    for (const line of s.state.unindexed) s.index.add(line);
    s.state.unindexed = [];
    const fd = this.appendHandle(s);
    try {
      for (let at = 0; at < length; ) at += writeSync(fd, bytes, at, length - at, s.state.bytes + at);
    } catch (err) {
      try {
        ftruncateSync(fd, s.state.bytes);
      } catch {
        // The load-time torn-tail check covers what truncation could not remove.
      }
      throw new ArborError("io_error", `Cannot append to session ${s.id}: ${(err as Error).message}`);
    }
    s.state.bytes += length;
    s.dirty = true;
    return s.sync ? s.sync.sync() : null;
  }
}

/** Whether the index's last record is where it says, as a whole line naming the same entry. */
function lastRecordMatches(file: string, parsed: IndexTable): boolean {
  const last = parsed.last;
  if (!last) return false;
  const fd = openSync(file, "r");
  try {
    const text = readRecord(fd, last.loc);
    if (text === undefined) return false;
    const raw = JSON.parse(text) as { id?: unknown; entry?: { id?: unknown } } | null;
    return (last.loc.update ? raw?.entry?.id : raw?.id) === last.id;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
