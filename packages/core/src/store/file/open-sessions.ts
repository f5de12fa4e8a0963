import { closeSync, ftruncateSync, writeSync } from "node:fs";
import { ArborError } from "../../errors.js";
import type { Durability } from "../spec.js";
import { GroupFsync } from "./group-fsync.js";
import type { SessionDirs } from "./session-dir.js";
import { loadSessionState, type SessionState } from "./session-state.js";

export interface OpenSession {
  id: string;
  state: SessionState;
  fd: number | null;
  sync: GroupFsync | null;
  /** Derived meta (leaf, totals) changed since session.json was last written. */
  dirty: boolean;
  /** session.json as last read or written here: another process's rewrite changes it. */
  metaStamp: string;
}

/**
 * The file store's sessions held in memory, least recently used dropped first, each with its append
 * handle. A session that another process may write is checked against the disk before it is used.
 */
export class OpenSessions {
  readonly cache = new Map<string, OpenSession>();
  private readonly loading = new Map<string, Promise<OpenSession>>();

  constructor(
    private readonly dirs: SessionDirs,
    private readonly opts: {
      durability: Durability;
      cacheSize: number;
      /** True while the loaded session is known to match the disk, or is in use and must not be dropped. */
      settled: (id: string) => boolean;
      /** True while this store holds the session's lease. */
      leased: (id: string) => boolean;
    },
  ) {}

  /**
   * Whether a loaded session still matches the disk. Only checked when this store does not hold the
   * session's lease: another process may then have appended or rewritten session.json.
   */
  isFresh(s: OpenSession): boolean {
    return this.dirs.entriesSize(s.id) === s.state.bytes + s.state.tornBytes && this.dirs.metaStamp(s.id) === s.metaStamp;
  }

  /** Forgets a loaded session without writing anything back (the disk is newer). */
  drop(s: OpenSession): void {
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

  load(id: string): Promise<OpenSession> {
    const cached = this.current(id);
    if (cached) {
      this.cache.delete(id);
      this.cache.set(id, cached);
      return Promise.resolve(cached);
    }
    let pending = this.loading.get(id);
    if (!pending) {
      pending = Promise.resolve().then(() => {
        try {
          const found = this.dirs.readMeta(id);
          if (!found) throw new ArborError("session_not_found", `Session ${id} does not exist.`);
          const file = this.dirs.entriesFile(id);
          const metaStamp = this.dirs.metaStamp(id);
          const session: OpenSession = {
            id,
            state: loadSessionState(file, found.meta),
            fd: null,
            sync: null,
            dirty: false,
            metaStamp,
          };
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
    if (s.fd !== null) closeSync(s.fd);
    s.fd = null;
    s.sync = null;
  }

  writeMeta(s: OpenSession): void {
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
   * failed write is cut back off so no partial record stays behind.
   */
  writeRecords(s: OpenSession, text: string): Promise<void> | null {
    const fd = this.appendHandle(s);
    const buf = Buffer.from(text);
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, s.state.bytes + off);
    } catch (err) {
      try {
        ftruncateSync(fd, s.state.bytes);
      } catch {
        // The load-time torn-tail check covers what truncation could not remove.
      }
      throw new ArborError("io_error", `Cannot append to session ${s.id}: ${(err as Error).message}`);
    }
    s.state.bytes += buf.length;
    s.dirty = true;
    return s.sync ? s.sync.sync() : null;
  }
}
