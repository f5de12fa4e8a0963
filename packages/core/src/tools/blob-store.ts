import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ArborError } from "../errors.js";
import { pathExists } from "../file-system.js";

/**
 * Large payloads (tool outputs over the cap, later files and images) are kept once, out of line, by
 * content hash, so a session entry only holds a short ref and the same output stored twice
 * costs nothing. A ref is `sha256-<64 hex>`.
 */
export interface BlobStore {
  put(bytes: Uint8Array | string): Promise<string>;
  /** The bytes under `ref`, or undefined when no such blob was stored. */
  get(ref: string): Promise<Uint8Array | undefined>;
  /** Removes the blob (erasing a deleted message's saved outputs); false when there was none. */
  delete(ref: string): Promise<boolean>;
}

const REF_PATTERN = /^sha256-([0-9a-f]{64})$/;

export function blobRef(bytes: Uint8Array | string): string {
  return `sha256-${createHash("sha256").update(bytes).digest("hex")}`;
}

export function isBlobRef(value: string): boolean {
  return REF_PATTERN.test(value);
}

function refHex(ref: string): string {
  const match = REF_PATTERN.exec(ref);
  if (!match) {
    throw new ArborError("invalid_input", `"${ref}" is not a blob ref; refs look like sha256-<64 hex digits>.`, { ref });
  }
  return match[1]!;
}

/**
 * Blobs as files under `<dir>/sha256/<first 2 hex>/<rest>`. A blob is written to a temporary name
 * and renamed into place, so a reader never sees half a blob, and a crash leaves at most a stray
 * temporary file. Two writers of the same content race harmlessly: both renames carry equal bytes.
 */
export class FileBlobStore implements BlobStore {
  constructor(
    readonly dir: string,
    private readonly options: { fsync?: boolean } = {},
  ) {}

  private pathOf(hex: string): string {
    return join(this.dir, "sha256", hex.slice(0, 2), hex.slice(2));
  }

  async put(bytes: Uint8Array | string): Promise<string> {
    const ref = blobRef(bytes);
    const path = this.pathOf(refHex(ref));
    if (await pathExists(path)) return ref;
    const folder = join(path, "..");
    await mkdir(folder, { recursive: true });
    const tmp = `${path}.tmp-${randomBytes(6).toString("hex")}`;
    try {
      const handle = await open(tmp, "w");
      try {
        await handle.writeFile(bytes);
        if (this.options.fsync === true) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw new ArborError("io_error", `Could not store a blob under ${this.dir}: ${(err as Error).message}`, { ref });
    }
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.pathOf(refHex(ref)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  async delete(ref: string): Promise<boolean> {
    const path = this.pathOf(refHex(ref));
    if (!(await pathExists(path))) return false;
    await rm(path, { force: true });
    return true;
  }
}

/** For tests and throwaway runtimes: the same contract, held in this instance's map. */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Uint8Array>();

  async put(bytes: Uint8Array | string): Promise<string> {
    const ref = blobRef(bytes);
    if (!this.blobs.has(ref)) this.blobs.set(ref, typeof bytes === "string" ? Buffer.from(bytes) : Uint8Array.from(bytes));
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    refHex(ref);
    return this.blobs.get(ref);
  }

  async delete(ref: string): Promise<boolean> {
    refHex(ref);
    return this.blobs.delete(ref);
  }

  get size(): number {
    return this.blobs.size;
  }
}
