import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import { readTextIfExists } from "../../file-system.js";
import {
  type AskAnswer,
  type AskInput,
  type AskRecord,
  answerRefusal,
  type ListAsksOptions,
  listing,
  parseAskAnswer,
  parseAskInput,
  storedAsk,
} from "../asks.js";
import { syncDir } from "./atomic-write.js";

const ASK = /^([A-Za-z0-9_-]{1,100})\.json$/;

/**
 * The file store's asks: `asks/<id>.json` holds what is asked, `asks/<id>.answer.json` its answer.
 * Each is written whole under a temporary name and then hard-linked to its name, which fails when
 * the name exists: so of two processes answering at once exactly one succeeds (the compare-and-set),
 * and a reader sees an answer whole or not at all. Any process may write them, lease or not.
 */
export class AskFiles {
  constructor(
    private readonly dir: string,
    private readonly fsync: boolean,
  ) {}

  init(): void {
    mkdirSync(this.dir, { recursive: true });
  }

  create(ask: AskInput): AskRecord {
    const record = parseAskInput(ask);
    if (!this.place(`${record.id}.json`, JSON.stringify(record))) {
      throw new ArborError("invalid_input", `An ask with id ${record.id} exists already.`);
    }
    return { ...record };
  }

  get(id: string): AskRecord | undefined {
    if (!ASK.test(`${id}.json`)) return undefined;
    const ask = this.read(`${id}.json`);
    if (ask === undefined) return undefined;
    return storedAsk(ask, this.read(`${id}.answer.json`), `${id} in ${this.dir}`);
  }

  list(opts?: ListAsksOptions): AskRecord[] {
    const ids = readdirSync(this.dir).flatMap((name) => ASK.exec(name)?.[1] ?? []);
    return listing(
      ids.map((id) => this.get(id)),
      opts,
    );
  }

  answer(id: string, answer: AskAnswer): AskRecord {
    const parsed = parseAskAnswer(answer);
    const current = this.get(id);
    const refusal = answerRefusal(id, current, parsed);
    if (refusal) throw refusal;
    if (!this.place(`${id}.answer.json`, JSON.stringify(parsed))) {
      throw answerRefusal(id, this.get(id), parsed) ?? new ArborError("io_error", `Ask ${id} could not be answered.`);
    }
    return { ...current!, answer: parsed };
  }

  /** Removes a deleted session's asks. */
  deleteSession(sessionId: string): void {
    for (const record of this.list({ sessionId })) {
      rmSync(join(this.dir, `${record.id}.answer.json`), { force: true });
      rmSync(join(this.dir, `${record.id}.json`), { force: true });
    }
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
