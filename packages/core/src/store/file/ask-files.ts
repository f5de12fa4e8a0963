import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readTextIfExists } from "../../file-system.js";
import { type AskAnswer, AskBook, type AskInput, type AskRecord, storedAsk } from "../asks.js";
import { syncDir } from "./atomic-write.js";

const ASK = /^([A-Za-z0-9_-]{1,100})\.json$/;

/**
 * The file store's asks: `asks/<id>.json` holds what is asked, `asks/<id>.answer.json` its answer.
 * Each is written whole under a temporary name and then hard-linked to its name, which fails when
 * the name exists: so of two processes answering at once exactly one succeeds (the compare-and-set),
 * and a reader sees an answer whole or not at all. Any process may write them, lease or not.
 */
export class AskFiles extends AskBook {
  constructor(
    private readonly dir: string,
    private readonly fsync: boolean,
  ) {
    super();
  }

  init(): void {
    mkdirSync(this.dir, { recursive: true });
  }

  get(id: string): AskRecord | undefined {
    if (!ASK.test(`${id}.json`)) return undefined;
    const ask = this.read(`${id}.json`);
    if (ask === undefined) return undefined;
    return storedAsk(ask, this.read(`${id}.answer.json`), `${id} in ${this.dir}`);
  }

  /** Removes a deleted session's asks. */
  deleteSession(sessionId: string): void {
    for (const record of this.candidates().filter((r) => r.sessionId === sessionId)) {
      rmSync(join(this.dir, `${record.id}.answer.json`), { force: true });
      rmSync(join(this.dir, `${record.id}.json`), { force: true });
    }
  }

  protected candidates(): AskRecord[] {
    const ids = readdirSync(this.dir).flatMap((name) => ASK.exec(name)?.[1] ?? []);
    return ids.flatMap((id) => this.get(id) ?? []);
  }

  protected putAsk(ask: AskInput): boolean {
    return this.place(`${ask.id}.json`, JSON.stringify(ask));
  }

  protected putAnswer(id: string, answer: AskAnswer): boolean {
    return this.place(`${id}.answer.json`, JSON.stringify(answer));
  }

  /** Writes `name` whole unless it exists: false when another writer got there first. */
  private place(name: string, content: string): boolean {
    const tmp = join(this.dir, `.${name}.tmp-${randomBytes(6).toString("hex")}`);
    const fd = openSync(tmp, "wx");
    try {
      writeSync(fd, content);
      if (this.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, join(this.dir, name));
      if (this.fsync) syncDir(this.dir);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /** A file's text; undefined when there is none. */
  private read(name: string): string | undefined {
    return readTextIfExists(join(this.dir, name));
  }
}
