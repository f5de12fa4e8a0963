import { lstatSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { LooseObjects, TreeEntry } from "./loose-objects.js";
import type { FileChange } from "./named-patch.js";
import type { FilePatch } from "./snapshot-entry.js";

/**
 * A file larger than this is left to git, which streams it; hashing it here would hold the
 * event loop of the process that took the snapshot.
 */
const MAX_FILE_BYTES = 1024 * 1024;
/** Git's empty tree: what `write-tree` records for a workspace with no file left. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const FILE_MODES = new Set(["100644", "100755"]);

/** A tree to build from named files: the history's git directory, the workspace, the base tree, the paths. */
export interface TreeBuild {
  gitDir: string;
  workspace: string;
  base: string;
  paths: string[];
}

/** A tree built from named files, and the patch from its base when it could be written without git. */
export interface BuiltTree {
  tree: string;
  files?: FilePatch[];
}

/** Why the tree cannot be built here: the caller hands the paths to `git add`, which knows every case. */
class NeedsGit extends Error {}

/** The changes under one directory: files named in it, and the subdirectories holding other named files. */
interface Changes {
  files: Set<string>;
  dirs: Map<string, Changes>;
}

/**
 * The tree `base` with the named files (workspace-relative, `/`-separated) taken as they are now on
 * disk, written straight into the history's object store: what `git add --all -- <paths>` followed
 * by `write-tree` records, without starting git. Only the plain case is taken: each path is a file
 * `base` already holds (100644 or 100755), now a regular file of at most 1 MiB or gone, under
 * directories that are still directories and hold no `.gitattributes` (whose filters only git
 * applies). Anything else (a new file, which may be ignored; a symlink; a file turned directory; a
 * tree stored packed) returns undefined, and nothing is recorded. Each file whose entry changed is
 * added to `changes`, with the bytes stored, when it is given: what the step's patch is written from.
 */
export function treeWithFiles(
  objects: LooseObjects,
  workspace: string,
  base: string,
  paths: readonly string[],
  changes?: FileChange[],
): string | undefined {
  const root: Changes = { files: new Set(), dirs: new Map() };
  for (const path of paths) {
    const parts = path.split("/");
    if (parts.some((p) => p === "" || p === "." || p === "..")) return undefined;
    let at = root;
    for (const dir of parts.slice(0, -1)) {
      let next = at.dirs.get(dir);
      if (!next) {
        next = { files: new Set(), dirs: new Map() };
        at.dirs.set(dir, next);
      }
      at = next;
    }
    at.files.add(parts.at(-1)!);
  }
  try {
    const tree = rewrite(objects, workspace, base, "", root, changes);
    if (tree !== null) return tree;
    objects.writeTree([]);
    return EMPTY_TREE;
  } catch (error) {
    if (error instanceof NeedsGit) return undefined;
    throw error;
  }
}

/** The new id of tree `id` at `prefix` with `changes` applied; null when no entry is left in it. */
function rewrite(
  objects: LooseObjects,
  workspace: string,
  id: string,
  prefix: string,
  changes: Changes,
  out?: FileChange[],
): string | null {
  const entries = objects.tree(id);
  if (!entries) throw new NeedsGit();
  if (entries.some((e) => e.name.toString("latin1") === ".gitattributes")) throw new NeedsGit();
  // The directory itself, seen from the workspace: a symlink there would lead lstat elsewhere.
  if (prefix !== "") {
    const dir = lstatSync(join(workspace, prefix), { throwIfNoEntry: false });
    if (dir && !dir.isDirectory()) throw new NeedsGit();
  }
  const byName = new Map(entries.map((e, i) => [e.name.toString("utf8"), i]));
  const next: (TreeEntry | null)[] = [...entries];
  let changed = false;
  for (const name of changes.files) {
    const i = entryIndex(byName, entries, name);
    const entry = entries[i]!;
    if (!FILE_MODES.has(entry.mode)) throw new NeedsGit();
    const now = fileEntry(objects, join(workspace, prefix, name), entry);
    next[i] = now ? now.entry : null;
    if (now?.entry === entry) continue;
    changed = true;
    out?.push({
      path: prefix === "" ? name : `${prefix}/${name}`,
      before: { mode: entry.mode, id: entry.id.toString("hex") },
      after: now && { mode: now.entry.mode, id: now.entry.id.toString("hex"), content: now.content },
    });
  }
  for (const [name, sub] of changes.dirs) {
    const i = entryIndex(byName, entries, name);
    if (entries[i]!.mode !== "40000") throw new NeedsGit();
    const before = entries[i]!.id.toString("hex");
    const after = rewrite(objects, workspace, before, prefix === "" ? name : `${prefix}/${name}`, sub, out);
    if (after === before) continue;
    changed = true;
    next[i] = after === null ? null : { ...entries[i]!, id: Buffer.from(after, "hex") };
  }
  if (!changed) return id;
  const kept = next.filter((e): e is TreeEntry => e !== null);
  if (kept.length === 0) return null;
  return objects.writeTree(kept);
}

/** The position of `name` in the tree; a name it lacks (a new file or directory) needs git. */
function entryIndex(byName: Map<string, number>, entries: readonly TreeEntry[], name: string): number {
  const i = byName.get(name);
  // Compared as bytes too: a stored name that is not UTF-8 must not match by its decoded form.
  if (i === undefined || !entries[i]!.name.equals(Buffer.from(name, "utf8"))) throw new NeedsGit();
  return i;
}

/** The file's entry as it is on disk now and the bytes stored: null when it is gone, `entry` itself when unchanged. */
function fileEntry(objects: LooseObjects, path: string, entry: TreeEntry): { entry: TreeEntry; content: Buffer } | null {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    // Not a directory on the way, no permission: git says what that means.
    throw new NeedsGit();
  }
  if (!stats) return null;
  if (!stats.isFile() || stats.size > MAX_FILE_BYTES) throw new NeedsGit();
  const content = readFileSync(path);
  // What git records with core.fileMode on: the owner's execute bit.
  const mode = stats.mode & 0o100 ? "100755" : "100644";
  const id = Buffer.from(objects.write("blob", content), "hex");
  if (mode === entry.mode && id.equals(entry.id)) return { entry, content };
  return { entry: { mode, name: entry.name, id }, content };
}
