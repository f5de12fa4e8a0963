import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import type { InboxMessage, InboxPage } from "../inbox.js";
import { writeFileAtomic } from "./atomic-write.js";
import { InboxWatch } from "./inbox-watch.js";

const INBOX_DIR = "inbox";
/** Time first so names sort in the order the messages were left; the random tail keeps two racing writers apart. */
const NAME = /^(\d{15})-[0-9a-f]{12}\.json$/;

/**
 * The file store's inbox: one small file per message in `<session>/inbox/`, each written whole
 * under a temporary name and renamed, so another process (which may not touch the session's other
 * files while the driver holds the lease) never half-writes one and the driver never reads half.
 */
export class InboxFiles {
  /** Whether a driven session's inbox may hold something new, so a step that finds nothing costs no stat. */
  readonly watch = new InboxWatch();

  constructor(
    private readonly sessionsRoot: string,
    private readonly fsync: boolean,
    /** A message is held to the store's entry limit: it becomes an entry when the run reads it. */
    private readonly maxBytes: number,
  ) {}

  /** Before anything is read or written, so an oversized message is refused the same way whether its session exists or not. */
  checkSize(text: string): void {
    const size = Buffer.byteLength(text);
    if (size > this.maxBytes) {
      throw new ArborError("entry_too_large", `The message is ${size} bytes, over the ${this.maxBytes}-byte limit.`);
    }
  }

  private dir(id: string): string {
    return join(this.sessionsRoot, id, INBOX_DIR);
  }

  post(id: string, text: string, now: Date): InboxMessage {
    const dir = this.dir(id);
    mkdirSync(dir, { recursive: true });
    // After every name already there, so a message left later sorts later (and after any reader's
    // cursor) even within one millisecond or against a clock that stepped back.
    const newest = this.names(dir).at(-1);
    const time = Math.max(now.getTime(), newest ? Number(NAME.exec(newest)![1]) + 1 : 0);
    const name = `${String(time).padStart(15, "0")}-${randomBytes(6).toString("hex")}.json`;
    const at = now.toISOString();
    writeFileAtomic(join(dir, name), JSON.stringify({ text, at }), this.fsync);
    this.watch.posted(id);
    return { id: name, text, at };
  }

  /** Names in order in the inbox folder `dir`; a missing folder is an empty inbox. */
  private names(dir: string): string[] {
    try {
      return readdirSync(dir)
        .filter((n) => NAME.test(n))
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
  }

  /** `driving`: this store holds the session's lease, and its run will ask `watch` before reading again. */
  read(id: string, after: string | undefined, driving: boolean): InboxPage {
    const dir = this.dir(id);
    // Most sessions are never steered: a stat that finds nothing is far cheaper than a thrown ENOENT.
    const exists = existsSync(dir);
    if (driving) this.watch.reading(id, dir, exists);
    const names = exists ? this.names(dir) : [];
    if (driving) this.watch.listed(id, names.at(-1) ?? "");
    if (after === undefined) return { messages: [], cursor: names.at(-1) ?? "" };
    const messages: InboxMessage[] = [];
    for (const name of names) {
      if (name <= after) continue;
      const data = JSON.parse(readFileSync(join(dir, name), "utf8")) as { text?: unknown; at?: unknown };
      if (typeof data.text === "string") messages.push({ id: name, text: data.text, at: String(data.at ?? "") });
    }
    return { messages, cursor: names.at(-1) && names.at(-1)! > after ? names.at(-1)! : after };
  }
}
