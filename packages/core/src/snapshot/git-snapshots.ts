import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile, realpath } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ArborError } from "../errors.js";
import { pathExists } from "../file-system.js";
import { type GitRunner, runGit } from "./git-runner.js";
import { LooseObjects } from "./loose-objects.js";
import type { FileChange } from "./named-patch.js";
import { type BuiltTree, treeWithFiles } from "./named-tree.js";
import type { FilePatch } from "./snapshot-entry.js";

/** The list of trees a history recorded, in its git directory. */
const TREES_FILE = "arbor-trees";
/** Git's empty tree, which every repository holds without storing it. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/**
 * The workspace's file history, kept in a private git directory under
 * `$ARBOR_HOME/snapshots/<hash of the workspace path>` with the workspace as its work tree.
 * `git add -A` + `write-tree` reuses the index's stat cache, so a snapshot costs what changed plus
 * one `lstat` per file, and unchanged content is never reread or stored twice. The user's own
 * `.git` is never read or written (git skips `.git` in a work tree); `.gitignore` files are honoured
 * because git reads them. Each session keeps its own index file, so runs of two sessions in one
 * workspace never contend for an index lock; the objects they write are shared.
 */
export interface WorkspaceSnapshots {
  readonly workspace: string;
  /**
   * Records the workspace as it is now; returns the tree id. Given `changed` (every file that may
   * differ from what this history last recorded, absolute or workspace-relative), only those files
   * are looked at instead of one `lstat` per workspace file; anything else that changed meanwhile
   * waits for the next call without `changed`. When they are all files the last tree holds, the new
   * tree is written without starting git (see `treeWithFiles`). A list git refuses (an ignored file, a path through a
   * symlink) or one naming a `.gitignore` (which changes what the rest means) gets a full look.
   */
  track(changed?: readonly string[]): Promise<string>;
  /**
   * Whether `tree` is one this history recorded (`track` returned it): a revert restores only
   * those, never a tree an entry merely names (git's empty tree in an imported session, say).
   */
  recorded(tree: string): Promise<boolean>;
  /** What changed from one tree to another, with the diffs. */
  patch(from: string, to: string): Promise<FilePatch[]>;
  /**
   * Makes the workspace match `target`: changed files rewritten, files `target` lacks removed,
   * ignored files left alone. `current` must be a tree `track()` just returned.
   */
  restore(current: string, target: string): Promise<void>;
  /**
   * Applies to the workspace as it is what changed from tree `from` to tree `to` (only under
   * `paths` when given): the hunks, not whole files, so later edits elsewhere in those files stay.
   * All or nothing: when a hunk does not fit what the files now hold, nothing is written and it
   * throws `revert_conflict`. Returns the paths it changed.
   */
  applyDiff(from: string, to: string, paths?: readonly string[]): Promise<string[]>;
}

export interface SnapshotOptions {
  /** `$ARBOR_HOME`: the private histories live in its `snapshots/` directory. */
  home: string;
  workspace: string;
  /** Names the index: one per session. */
  sessionId: string;
  /** Starts git off this process's event loop (a long-lived server's); without it git is started here. */
  runner?: GitRunner;
}

/** Opens (creating on first use) the private history of a workspace. */
export async function openSnapshots(options: SnapshotOptions): Promise<WorkspaceSnapshots> {
  const workspace = await realpath(options.workspace).catch(() => {
    throw new ArborError("snapshot_failed", `Workspace ${options.workspace} does not exist; nothing can be snapshotted.`);
  });
  const gitDir = join(options.home, "snapshots", createHash("sha256").update(workspace).digest("hex").slice(0, 16));
  const indexName = createHash("sha256").update(options.sessionId).digest("hex").slice(0, 16);
  const env: Record<string, string> = {
    ...cleanEnv(process.env),
    GIT_DIR: gitDir,
    GIT_WORK_TREE: workspace,
    GIT_INDEX_FILE: join(gitDir, `index-${indexName}`),
  };
  const git = (args: readonly string[]) => runGit({ args, env, cwd: workspace }, options.runner);
  if (!(await pathExists(join(gitDir, "HEAD")))) {
    await mkdir(gitDir, { recursive: true });
    await git(["init", "--quiet"]);
    // Never repack or prune on its own: a revert may need any tree the journal names.
    for (const [key, value] of [
      ["gc.auto", "0"],
      ["core.autocrlf", "false"],
      ["core.safecrlf", "false"],
      ["core.untrackedCache", "true"],
      ["core.quotepath", "false"],
      ["core.longpaths", "true"],
      ["core.symlinks", "true"],
    ] as const) {
      await git(["config", key, value]);
    }
  }
  // Every tree `track` wrote, a line each (41 bytes a snapshot): what `recorded` vouches for.
  const treesFile = join(gitDir, TREES_FILE);
  /** The tree `track` last returned: the base a step's named files are applied to. */
  let last: string | undefined;
  /**
   * Files recorded by building the tree here, which the index has not seen: a later `git add` of
   * named files takes them too, so its `write-tree` cannot bring back what they held before.
   */
  const unindexed = new Set<string>();
  let objects: LooseObjects | undefined;
  /**
   * The tree `treeWithFiles` builds with its patch from `base` (undefined: git must build it), in
   * the runner when there is one: its synchronous object writes and diffs then hold that small
   * process, not this one's event loop.
   */
  const build = async (base: string, paths: string[]): Promise<BuiltTree | undefined> => {
    const answer = options.runner ? await options.runner.build({ gitDir, workspace, base, paths }) : "unavailable";
    if (answer !== "unavailable" && answer !== "lost") return answer ?? undefined;
    try {
      objects ??= new LooseObjects(gitDir);
      const changes: FileChange[] = [];
      const tree = treeWithFiles(objects, workspace, base, paths, changes);
      if (tree === undefined) return undefined;
      // Loaded on first use, like the limits `patch` takes from it: never at start-up.
      const files = (await import("./named-patch.js")).patchOfChanges(objects, changes);
      return files ? { tree, files } : { tree };
    } catch {
      // An object store this cannot read or write: git reports what is wrong, or copes.
      return undefined;
    }
  };
  /** The patch of the last tree built from named files, from its base: `patch` of those two needs no git. */
  let built: { from: string; to: string; files: FilePatch[] } | undefined;
  let buildable: Promise<boolean> | undefined;
  const plain = () => {
    buildable ??= plainHistory(gitDir, git);
    return buildable;
  };
  const remember = async (tree: string) => {
    if (tree !== last) await appendFile(treesFile, `${tree}\n`);
    last = tree;
    return tree;
  };
  const record = async () => remember((await git(["write-tree"])).trim());
  /**
   * The tree after a `git add --verbose`, which names every entry it adds, updates or removes: when
   * it named none in an index that held exactly the last tree, that tree again, without `write-tree`
   * (a step whose `bash` only read or ran tests costs one git process, not two).
   */
  const settle = async (verbose: string) => {
    const unchanged = verbose === "" && unindexed.size === 0 ? last : undefined;
    unindexed.clear();
    return unchanged ?? record();
  };
  return {
    workspace,
    async track(changed) {
      const paths = changed && workspacePaths(changed, [workspace, resolve(options.workspace)]);
      if (paths) {
        // Files the tree already holds, changed in place: their blobs and the trees above them are
        // written here, and no git process starts. Anything git must judge goes to `git add`.
        const base = last;
        if (base !== undefined && (await plain())) {
          const made = await build(base, paths);
          if (made !== undefined) {
            for (const path of paths) unindexed.add(path);
            built = made.files && { from: base, to: made.tree, files: made.files };
            return remember(made.tree);
          }
        }
        try {
          const add = [...new Set([...paths, ...unindexed])];
          if (add.length === 0) return await record();
          // Literal: a file named `*.ts` is that file. No preload: its threads lstat every entry.
          // The paths go on stdin, NUL-separated: any number of them, any name.
          const verbose = await runGit(
            {
              args: [
                "--literal-pathspecs",
                "-c",
                "core.preloadIndex=false",
                "add",
                "--all",
                "--verbose",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
              ],
              env,
              cwd: workspace,
              input: add.map((p) => `${p}\0`).join(""),
            },
            options.runner,
          );
          return await settle(verbose);
        } catch {
          // What git would not take from the list it finds by looking at everything.
        }
      }
      return settle(await git(["add", "--all", "--verbose", "--ignore-errors", "."]));
    },
    async recorded(tree) {
      if (!/^[0-9a-f]{40,64}$/.test(tree)) return false;
      const list = await readFile(treesFile, "utf8").catch(() => undefined);
      if (list !== undefined) return list.includes(`${tree}\n`);
      // A history from before the list: any tree stored in it, but never git's built-in empty tree.
      if (tree === EMPTY_TREE) return false;
      return git(["cat-file", "-e", `${tree}^{tree}`]).then(
        () => true,
        () => false,
      );
    },
    async patch(from, to) {
      if (from === to) return [];
      if (built && built.from === from && built.to === to) return built.files.map((file) => ({ ...file }));
      // One process for the list and the diffs: raw records (NUL-separated, so any path survives),
      // a NUL, then the patch text in the same path order.
      const out = await git(["diff-tree", "-r", "-z", "--raw", "-p", "--no-renames", "--no-color", "--no-ext-diff", from, to]);
      const { files, rest } = parseRaw(out);
      const { capDiff, MAX_DIFFED_FILES } = await import("./named-patch.js");
      const chunks = splitDiff(rest);
      if (chunks.length === files.length) {
        for (const [i, f] of files.entries()) f.diff = i < MAX_DIFFED_FILES ? capDiff(chunks[i]!) : "";
      }
      return files;
    },
    async restore(current, target) {
      if (current === target) return;
      // A two-tree merge from what the index holds to the target: git rewrites only the files
      // that differ and removes those the target lacks.
      await git(["read-tree", "-m", "-u", current, target]);
      // The index now holds the target: a full look that finds nothing changed returns it.
      last = target;
    },
    async applyDiff(from, to, paths) {
      if (from === to) return [];
      const limit = paths && paths.length > 0 ? ["--", ...paths] : [];
      const diff = ["diff-tree", "-r", "-p", "--binary", "--full-index", "--no-renames", "--no-color", "--no-ext-diff"];
      const patch = await git([...diff, from, to, ...limit]);
      if (patch.trim() === "") return [];
      const changed = (await git(["diff-tree", "-r", "-z", "--name-only", "--no-renames", from, to, ...limit]))
        .split("\0")
        .filter((p) => p !== "");
      // git apply checks every hunk first and writes nothing unless all fit.
      // Once: a lost call is not rerun, since the first may have written the files.
      await runGit(
        { args: ["apply", "--whitespace=nowarn", "-"], env, cwd: workspace, input: patch },
        options.runner,
        true,
      ).catch((error: unknown) => {
        throw new ArborError(
          "revert_conflict",
          `The files changed since (${changed.join(", ")}): the change cannot be taken back on its own; nothing was changed. ${(error as Error).message}`,
        );
      });
      return changed;
    },
  };
}

/**
 * Whether trees may be built without git: blobs are then the files' bytes and modes their execute
 * bits, which holds when git tracks file modes (`core.fileMode`, set by `init` where the file system
 * keeps them) and no attributes file outside the workspace could filter content on its way in.
 */
async function plainHistory(gitDir: string, git: (args: readonly string[]) => Promise<string>): Promise<boolean> {
  const config = await readFile(join(gitDir, "config"), "utf8").catch(() => "");
  if (!/^\s*filemode\s*=\s*true\s*$/im.test(config)) return false;
  const xdg = process.env.XDG_CONFIG_HOME || (process.env.HOME ? join(process.env.HOME, ".config") : undefined);
  for (const path of [join(gitDir, "info", "attributes"), ...(xdg ? [join(xdg, "git", "attributes")] : [])]) {
    if (await pathExists(path)) return false;
  }
  // `git config --get` exits 1 when the key is not set anywhere.
  const attributesFile = await git(["config", "--get", "core.attributesFile"]).catch(() => "");
  return attributesFile.trim() === "";
}

/**
 * `changed` as paths relative to the work tree (git's `/`), those outside it dropped (a full look would
 * not see them either); undefined when one is a `.gitignore`, whose change only a full look takes in.
 */
function workspacePaths(changed: readonly string[], roots: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const path of changed) {
    let inside: string | undefined;
    for (const root of roots) {
      const rel = relative(root, resolve(root, path));
      if (rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) {
        inside = rel;
        break;
      }
    }
    if (inside === undefined) continue;
    if (basename(inside) === ".gitignore") return undefined;
    out.push(sep === "/" ? inside : inside.split(sep).join("/"));
  }
  return out;
}

function statusOf(code: string): FilePatch["status"] {
  if (code.startsWith("A")) return "added";
  if (code.startsWith("D")) return "deleted";
  return "modified";
}

/** The `--raw -z` records at the head of the output, and the patch text after them. */
function parseRaw(out: string): { files: FilePatch[]; rest: string } {
  const files: FilePatch[] = [];
  let at = 0;
  while (out[at] === ":") {
    const metaEnd = out.indexOf("\0", at);
    const pathEnd = out.indexOf("\0", metaEnd + 1);
    if (metaEnd < 0 || pathEnd < 0) break;
    const status = out.slice(at, metaEnd).split(" ").at(-1) ?? "M";
    files.push({ path: out.slice(metaEnd + 1, pathEnd), status: statusOf(status), diff: "" });
    at = pathEnd + 1;
  }
  if (out[at] === "\0") at++;
  return { files, rest: out.slice(at) };
}

function splitDiff(text: string): string[] {
  const chunks: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("diff --git ")) chunks.push(line);
    else if (chunks.length > 0) chunks[chunks.length - 1] += `\n${line}`;
  }
  return chunks.map((c) => c.replace(/\n+$/, ""));
}

/** The caller's git settings (a GIT_DIR of their own, say) must not leak into the private history. */
function cleanEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith("GIT_")) out[key] = value;
  }
  out.GIT_CONFIG_NOSYSTEM = "1";
  out.GIT_TERMINAL_PROMPT = "0";
  return out;
}

/** Whether git can be run here (tests and the runtime skip snapshots without it). */
export function gitAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile("git", ["--version"], (error) => resolve(!error)));
}
