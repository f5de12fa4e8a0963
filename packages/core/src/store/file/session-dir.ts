import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { ArborError } from "../../errors.js";
import { readTextIfExists } from "../../file-system.js";
import { jsonOrUndefined } from "../../json-text.js";
import { type SessionMeta, SessionMetaSchema } from "../../model/session.js";
import { describeIssues } from "../../model/validate.js";
import { migrateSessionMeta } from "../../session/migrate.js";
import { syncDir, writeFileAtomic, writeFileWhole, writeFileWholeAsync } from "./atomic-write.js";
import { CreatePace } from "./create-pace.js";
import { EVENTS_FILE } from "./event-file.js";
import { initSessionsRoot, sessionNames } from "./session-names.js";

const META_FILE = "session.json";
const ENTRIES_FILE = "entries.jsonl";
/** Where each entry's record is in entries.jsonl: a cache checked against it, rebuilt when wrong. */
const INDEX_FILE = "entries.idx";
/** A readable copy of the session's plan for people and tools that read files; the session tree is the record. */
export const GOAL_FILE = "goal.json";
/** Characters of initial entries a new session may be made with on the event loop (see `create`). */
const LOOP_TEXT_MAX = 64 * 1024;

/**
 * The on-disk layout of the file store: `<root>/sessions/<id>/session.json` and `entries.jsonl`.
 * session.json also records `entriesBytes`, how much of entries.jsonl its derived fields (leaf,
 * totals) account for, so a session can be listed without replaying its entries.
 */
export class SessionDirs {
  constructor(
    readonly root: string,
    private readonly fsync: boolean,
    private readonly pace = new CreatePace(),
  ) {}

  init(): void {
    initSessionsRoot(this.root);
  }

  /** Directory names that may be sessions (validated by the caller). */
  names(): string[] {
    return sessionNames(this.root);
  }

  /** Whether a directory for session `id` exists, whatever state its files are in. */
  has(id: string): boolean {
    return existsSync(join(this.root, id));
  }

  entriesFile(id: string): string {
    const file = join(this.root, id, ENTRIES_FILE);
    if (!existsSync(file)) writeFileSync(file, "", { flag: "a" });
    return file;
  }

  indexFile(id: string): string {
    return join(this.root, id, INDEX_FILE);
  }

  /** Identifies the current session.json: it is replaced by rename, so a rewrite changes it. */
  metaStamp(id: string): string {
    const st = statSync(join(this.root, id, META_FILE), { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.mtimeMs}:${st.size}` : "";
  }

  entriesSize(id: string): number {
    return statSync(join(this.root, id, ENTRIES_FILE), { throwIfNoEntry: false })?.size ?? 0;
  }

  /** session.json, migrated and validated; undefined when the session does not exist. */
  readMeta(id: string): { meta: SessionMeta; entriesBytes: number } | undefined {
    const file = join(this.root, id, META_FILE);
    const text = readTextIfExists(file);
    if (text === undefined) return undefined;
    const raw = jsonOrUndefined(text);
    if (raw === undefined) {
      const message = `${file} is not valid JSON. The file was not changed; restore it to open the session.`;
      throw new ArborError("corrupt_session", message, { file });
    }
    const { entriesBytes, ...rest } = (migrateSessionMeta(raw, file) ?? {}) as Record<string, unknown>;
    const r = SessionMetaSchema.safeParse({ ...rest, provider: "file" });
    if (!r.success) throw new ArborError("corrupt_session", `${file}: ${describeIssues(r.error, 3)}`, { file });
    if (r.data.id !== id) throw new ArborError("corrupt_session", `${file} holds session ${r.data.id}, not ${id}.`, { file });
    return { meta: r.data, entriesBytes: typeof entriesBytes === "number" ? entriesBytes : -1 };
  }

  /** Writes goal.json whole (rename into place); false when the session's directory is gone. */
  writeGoalTree(id: string, content: unknown): boolean {
    if (!existsSync(join(this.root, id, META_FILE))) return false;
    writeFileAtomic(join(this.root, id, GOAL_FILE), `${JSON.stringify(content, null, 2)}\n`, false);
    return true;
  }

  writeMeta(meta: SessionMeta, entriesBytes: number): void {
    writeFileAtomic(join(this.root, meta.id, META_FILE), `${JSON.stringify({ ...meta, entriesBytes }, null, 2)}\n`, this.fsync);
  }

  /**
   * Builds a session directory aside and renames it into place, so a session appears whole or not
   * at all. `accountedBytes` -1 marks the meta's derived fields as not yet computed.
   *
   * The files every session needs are made here, the event log empty (as a missing one reads), so the
   * log's first append opens a file that exists. The entry index is not among them: a session keeps
   * one only once it is large (see DEFAULT_INDEX_FROM_BYTES). `pace` says whether they are made on
   * the event loop or through the thread pool (see CreatePace). Always in the pool: a store that
   * fsyncs (each fsync waits on the disk) and a session made with entries past LOOP_TEXT_MAX (an
   * import), whose writes would stall every stream for as long as they take.
   */
  async create(meta: SessionMeta, entriesText: string, accountedBytes = Buffer.byteLength(entriesText)): Promise<void> {
    const tmp = join(this.root, `.tmp-${randomBytes(8).toString("hex")}`);
    const metaText = `${JSON.stringify({ ...meta, entriesBytes: accountedBytes }, null, 2)}\n`;
    const target = join(this.root, meta.id);
    try {
      const start = performance.now();
      if (!this.fsync && entriesText.length <= LOOP_TEXT_MAX && this.pace.where(start) === "loop") {
        this.makeOnLoop(tmp, target, metaText, entriesText);
        const end = performance.now();
        this.pace.tookOnLoop(end - start, end);
      } else await this.makeInPool(tmp, target, metaText, entriesText);
      if (this.fsync) syncDir(this.root);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      if (err instanceof ArborError) throw err;
      throw new ArborError("io_error", `Cannot create session ${meta.id}: ${(err as Error).message}`);
    }
  }

  // Nobody reads the directory before it is renamed into place, so its files are written in place:
  // a rename each would only double the system calls of every new session.
  private makeOnLoop(tmp: string, target: string, metaText: string, entriesText: string): void {
    mkdirSync(tmp);
    writeFileWhole(join(tmp, META_FILE), metaText, this.fsync);
    writeFileWhole(join(tmp, ENTRIES_FILE), entriesText, this.fsync);
    writeFileWhole(join(tmp, EVENTS_FILE), "", false);
    try {
      renameSync(tmp, target);
    } catch (err) {
      throw renameError(err, target);
    }
  }

  private async makeInPool(tmp: string, target: string, metaText: string, entriesText: string): Promise<void> {
    await mkdir(tmp);
    await Promise.all([
      writeFileWholeAsync(join(tmp, META_FILE), metaText, this.fsync),
      writeFileWholeAsync(join(tmp, ENTRIES_FILE), entriesText, this.fsync),
      writeFileWholeAsync(join(tmp, EVENTS_FILE), "", false),
    ]);
    try {
      await rename(tmp, target);
    } catch (err) {
      throw renameError(err, target);
    }
  }

  /** Renames the directory away first, so a crash mid-delete never leaves half a session. */
  remove(id: string): void {
    const trash = join(this.root, `.trash-${randomBytes(8).toString("hex")}`);
    try {
      renameSync(join(this.root, id), trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new ArborError("io_error", `Cannot delete session ${id}: ${(err as Error).message}`);
    }
    rmSync(trash, { recursive: true, force: true });
  }

  /**
   * Opens entries.jsonl for appending at `bytes`. A torn tail past it is moved aside into
   * `entries.jsonl.torn-*` (kept as evidence, never silently dropped) and cut off first.
   */
  openForAppend(id: string, bytes: number, tornBytes: number): number {
    const fd = openSync(join(this.root, id, ENTRIES_FILE), "r+");
    try {
      if (tornBytes > 0) {
        const torn = Buffer.alloc(tornBytes);
        readSync(fd, torn, 0, tornBytes, bytes);
        writeFileSync(join(this.root, id, `${ENTRIES_FILE}.torn-${Date.now()}-${randomBytes(3).toString("hex")}`), torn);
        ftruncateSync(fd, bytes);
      }
      return fd;
    } catch (err) {
      closeSync(fd);
      throw new ArborError("io_error", `Cannot open session ${id} for appending: ${(err as Error).message}`);
    }
  }
}

/** A session directory renamed onto an existing one: the session exists. */
function renameError(err: unknown, target: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EEXIST" || code === "ENOTEMPTY")
    return new ArborError("session_exists", `Session ${basename(target)} already exists.`);
  return err;
}
