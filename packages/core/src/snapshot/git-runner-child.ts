/**
 * The git runner's child process: it starts git for the process that forked it. Creating a process
 * forks its parent, and a fork of this small process costs far less than one of a big server, whose
 * event loop would stall meanwhile. Requests come over the IPC channel; each is answered with what
 * git printed and how it ended, or, for a tree to build from named files, with its id. Run as a
 * script (by `GitRunner`), never imported: builtins and its sibling modules only, and only erasable
 * type syntax, so Node runs the source file as it is when the build is not there.
 */
import { execFile } from "node:child_process";
import type { LooseObjects } from "./loose-objects.js";
import type { FileChange } from "./named-patch.js";
import type { BuiltTree, TreeBuild } from "./named-tree.js";

interface Request {
  id: number;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input?: string;
  maxBuffer: number;
}

/** The siblings as built (.js beside this file) or, run from sources, as written. */
const sibling = (name: string) => new URL(`./${name}${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url).href;

/**
 * Builds trees from named files, and their patches, here rather than in the process that asked:
 * their objects are written with synchronous file calls and the diffs computed on this thread, which
 * would hold that process's event loop. Each history's store is kept, with the trees it learned,
 * until too many histories were seen.
 */
function treeBuilder() {
  const stores = new Map<string, LooseObjects>();
  let modules:
    | Promise<[typeof import("./loose-objects.js"), typeof import("./named-tree.js"), typeof import("./named-patch.js")]>
    | undefined;
  return async (build: TreeBuild): Promise<BuiltTree | null> => {
    modules ??= Promise.all([import(sibling("loose-objects")), import(sibling("named-tree")), import(sibling("named-patch"))]);
    const [{ LooseObjects }, { treeWithFiles }, { patchOfChanges }] = await modules;
    let store = stores.get(build.gitDir);
    if (!store) {
      if (stores.size >= 64) stores.clear();
      store = new LooseObjects(build.gitDir);
      stores.set(build.gitDir, store);
    }
    const changes: FileChange[] = [];
    const tree = treeWithFiles(store, build.workspace, build.base, build.paths, changes);
    if (tree === undefined) return null;
    // A patch that cannot be written here is left to git, which the parent then asks.
    const files = patchOfChanges(store, changes);
    return files ? { tree, files } : { tree };
  };
}
const buildTree = treeBuilder();

process.on("message", (message: Request | { id: number; build: TreeBuild }) => {
  if ("build" in message) {
    const { id, build } = message;
    // A tree that cannot be built here (or a store that fails) is git's: null says so.
    buildTree(build).then(
      (built) => process.send?.({ id, tree: built?.tree ?? null, ...(built?.files ? { files: built.files } : {}) }),
      () => process.send?.({ id, tree: null }),
    );
    return;
  }
  const { id, args, cwd, env, input, maxBuffer } = message;
  const child = execFile("git", args, { env, cwd, maxBuffer }, (error, stdout, stderr) => {
    const errno = error ? (error as NodeJS.ErrnoException).code : undefined;
    process.send?.({
      id,
      stdout,
      stderr,
      ...(error ? { error: { message: error.message, ...(typeof errno === "string" ? { code: errno } : {}) } } : {}),
    });
  });
  // A write to a git that already exited is reported by its exit, not thrown here.
  child.stdin?.on("error", () => {});
  if (input !== undefined) child.stdin?.end(input);
});
// The parent closed the channel or died: nothing more will be asked.
process.on("disconnect", () => process.exit(0));
