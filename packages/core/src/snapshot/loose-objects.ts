import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";

/** One entry of a git tree object: its mode as git writes it (`100644`, `40000`), raw name and id. */
export interface TreeEntry {
  mode: string;
  name: Buffer;
  id: Buffer;
}

/** SHA-1 object ids: the only format the private histories are created with. */
const ID_BYTES = 20;

/**
 * A history's object store, read and written in place rather than through the thread pool: a step
 * stores a handful of objects of a few KB each (files over 1 MiB are left to git), and each hop to
 * the pool and back cost more CPU than the write itself (measured: 3-5 ms a step against under 1).
 * What it already learned is kept: parsed trees by id (an id names one
 * content forever) and the fan-out directories known to exist.
 */
export class LooseObjects {
  private readonly trees = new Map<string, TreeEntry[]>();
  private readonly dirs = new Set<string>();
  private readonly gitDir: string;

  constructor(gitDir: string) {
    this.gitDir = gitDir;
  }

  /**
   * A tree's entries, or undefined when it is not stored loose (packed, or absent): the caller then
   * asks git. Every object git wrote for a snapshot history is loose: it never repacks on its own.
   */
  tree(id: string): TreeEntry[] | undefined {
    const known = this.trees.get(id);
    if (known) return known;
    const body = this.read(id, "tree");
    return body && this.remember(id, parseTree(body));
  }

  /** A blob's bytes, or undefined when it is not stored loose. */
  blob(id: string): Buffer | undefined {
    return this.read(id, "blob");
  }

  /** The body of the loose object `id` when it is of `type`. */
  private read(id: string, type: "tree" | "blob"): Buffer | undefined {
    if (!/^[0-9a-f]{40}$/.test(id)) return undefined;
    let raw: Buffer;
    try {
      raw = inflateSync(readFileSync(join(this.gitDir, "objects", id.slice(0, 2), id.slice(2))));
    } catch {
      return undefined;
    }
    const nul = raw.indexOf(0);
    const [stored, size] = raw.subarray(0, nul).toString("latin1").split(" ");
    const body = raw.subarray(nul + 1);
    return stored === type && Number(size) === body.length ? body : undefined;
  }

  /** Stores a tree of `entries` (already in git's order) and returns its id. */
  writeTree(entries: TreeEntry[]): string {
    const id = this.write("tree", formatTree(entries));
    this.remember(id, entries);
    return id;
  }

  /**
   * Stores `body` as a loose object the way git does (zlib over `<type> <size>\0<body>`, written
   * whole under a temporary name, then renamed into place, so no reader sees half an object) and
   * returns its id. Storing an object again replaces it with the same bytes.
   */
  write(type: string, body: Buffer): string {
    const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`, "latin1"), body]);
    const id = createHash("sha1").update(raw).digest("hex");
    const dir = join(this.gitDir, "objects", id.slice(0, 2));
    if (!this.dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    const temp = join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`);
    writeFileSync(temp, deflateSync(raw), { mode: 0o444 });
    const path = join(dir, id.slice(2));
    try {
      renameSync(temp, path);
    } catch (error) {
      // Another writer stored the same object first (a rename onto it fails on some systems).
      rmSync(temp, { force: true });
      if (!statSync(path, { throwIfNoEntry: false })) throw error;
    }
    return id;
  }

  private remember(id: string, entries: TreeEntry[]): TreeEntry[] {
    // A run touches a few directories again and again; past this many, start over.
    if (this.trees.size >= 1024) this.trees.clear();
    this.trees.set(id, entries);
    return entries;
  }
}

/** A tree object's entries, in the order git stores them. */
export function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 1 + ID_BYTES > body.length) throw new Error("malformed tree object");
    entries.push({
      mode: body.subarray(at, space).toString("latin1"),
      name: body.subarray(space + 1, nul),
      id: body.subarray(nul + 1, nul + 1 + ID_BYTES),
    });
    at = nul + 1 + ID_BYTES;
  }
  return entries;
}

/** The body of a tree object holding `entries`, which must already be in git's order. */
export function formatTree(entries: readonly TreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) parts.push(Buffer.from(`${entry.mode} `, "latin1"), entry.name, Buffer.from([0]), entry.id);
  return Buffer.concat(parts);
}
