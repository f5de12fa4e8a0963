import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseTokenRecord, sameHash, type TokenRecord, TokenRecordSchema, tokenNotFound } from "../../auth/tokens.js";
import { ArborError } from "../../errors.js";
import { byCreated, type TokenStore } from "../tokens.js";
import { ensurePrivateDir, readJsonRecord, writePrivateFile } from "./private-files.js";

const TOKEN_FILE = /^(tok_[A-Za-z0-9_-]{1,60})\.json$/;

/**
 * The file store's tokens: `tokens/<id>.json`, one record each (a hash, never the token), in a
 * folder only the owner may enter, each file readable by the owner alone.
 */
export class TokenFiles implements TokenStore {
  constructor(
    private readonly dir: string,
    private readonly fsync: boolean,
  ) {}

  private init(): void {
    ensurePrivateDir(this.dir);
  }

  async add(input: TokenRecord): Promise<TokenRecord> {
    const record = parseTokenRecord(input);
    this.init();
    if (this.read(record.id)) throw new ArborError("invalid_input", `A token with id ${record.id} exists already.`);
    this.write(record);
    return record;
  }

  async list(): Promise<TokenRecord[]> {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    const out: TokenRecord[] = [];
    for (const name of names) {
      const id = TOKEN_FILE.exec(name)?.[1];
      const record = id === undefined ? undefined : this.read(id);
      if (record) out.push(record);
    }
    return out.sort(byCreated);
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    return (await this.list()).find((r) => sameHash(r.hash, hash));
  }

  async revoke(id: string, at: string): Promise<TokenRecord> {
    const current = TOKEN_FILE.test(`${id}.json`) ? this.read(id) : undefined;
    if (!current) throw tokenNotFound(id);
    if (current.revokedAt !== undefined) return current;
    const revoked = { ...current, revokedAt: at };
    this.write(revoked);
    return revoked;
  }

  private write(record: TokenRecord): void {
    writePrivateFile(join(this.dir, `${record.id}.json`), JSON.stringify(record), this.fsync);
  }

  private read(id: string): TokenRecord | undefined {
    const name = `${id}.json`;
    return readJsonRecord(
      join(this.dir, name),
      TokenRecordSchema,
      (problem) =>
        new ArborError(
          "corrupt_session",
          problem === "not-json"
            ? `The token file ${name} is not valid JSON.`
            : `The token file ${name} does not hold a token record.`,
        ),
    );
  }
}
