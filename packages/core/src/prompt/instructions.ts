import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pathExists, readRegularFile } from "../file-system.js";
import { recentDailyLogPaths } from "../memory/memory-files.js";
import { discoverSkills, skillRoots } from "../tools/skills.js";
import { fitMemory } from "./memory-budget.js";
import type { PromptFile, PromptSkill } from "./system-prompt.js";

/** What the system prompt needs from disk (system-prompt.ts stays pure). */
export interface PromptContext {
  instructions: PromptFile[];
  skills: PromptSkill[];
  /** A `.git` entry (a folder, or the file a worktree has) was found in the workspace or above it. */
  isGitRepo: boolean;
}

export interface LoadPromptContextOptions {
  /** The workspace. */
  cwd: string;
  /** `$ARBOR_HOME`, for user-level files and skills. */
  arborHome: string;
  signal?: AbortSignal;
  /** Daily logs to read after MEMORY.md, and the budget all memory files share; without it MEMORY.md is read whole. */
  memory?: { date: Date; days: number; maxTokens: number };
}

/**
 * A prompt file larger than this is read only this far: the prompt cap would cut it anyway, and a
 * stray huge file (a log named MEMORY.md) must not cost a large read on every run.
 */
export const MAX_PROMPT_FILE_BYTES = 256 * 1024;

/**
 * Reads the instruction files and lists the skills. Order is general before specific (user-level
 * before workspace, outer folders before inner) so later, more specific text refines earlier text,
 * and by kind from who the agent is to what it remembers: SOUL, IDENTITY, USER, AGENTS, MEMORY.
 *
 * `AGENTS.md` is looked for in `$ARBOR_HOME` and in every folder from the workspace up to the git
 * root (the folder holding `.git`), or up to the file-system root outside a repository. The other
 * files are read from `$ARBOR_HOME` and the workspace only. A missing, unreadable or non-regular
 * file is skipped without a word: a run never fails over a prompt file.
 */
export async function loadPromptContext(options: LoadPromptContextOptions): Promise<PromptContext> {
  const { signal } = options;
  signal?.throwIfAborted();
  const cwd = resolve(options.cwd);
  const home = resolve(options.arborHome);
  const listings = new Map<string, Set<string> | undefined>();
  const { dirs, isGitRepo } = await walkToRepoRoot(cwd, listings);
  if (!listings.has(home)) listings.set(home, namesIn(home));
  signal?.throwIfAborted();

  const both = (name: string) => [join(home, name), join(cwd, name)];
  const candidates = [
    ...both("SOUL.md"),
    ...both("IDENTITY.md"),
    ...both("USER.md"),
    join(home, "AGENTS.md"),
    ...dirs.toReversed().map((dir) => join(dir, "AGENTS.md")),
    ...both("MEMORY.md"),
    ...(options.memory ? recentDailyLogPaths({ cwd, arborHome: home }, options.memory.date, options.memory.days) : []),
  ];
  // The workspace may be $ARBOR_HOME itself, or lie under it: read each file once.
  const paths = [...new Set(candidates)];
  const contents = paths.map((path) => (mayExist(listings, path) ? readPromptFile(path) : undefined));
  signal?.throwIfAborted();

  let instructions: PromptFile[] = [];
  paths.forEach((path, i) => {
    const content = contents[i];
    if (content !== undefined && content.trim() !== "") instructions.push({ path, content });
  });
  if (options.memory) {
    const isMemory = (file: PromptFile) => basename(file.path) === "MEMORY.md" || isDailyLog(file);
    const memory = fitMemory(instructions.filter(isMemory), isDailyLog, options.memory.maxTokens);
    instructions = [...instructions.filter((file) => !isMemory(file)), ...memory];
  }

  let skills: PromptSkill[] = [];
  try {
    // A root the listings show absent (no `.arbor` in the workspace, say) is not listed only to fail.
    const roots = skillRoots(cwd, home).filter((root) => mayExist(listings, root.dir));
    skills = (await discoverSkills(roots)).map(({ name, description }) => ({ name, description }));
  } catch {
    // discoverSkills already skips unreadable folders; this guards the promise above all the same.
  }
  signal?.throwIfAborted();
  return { instructions, skills, isGitRepo };
}

function isDailyLog(file: PromptFile): boolean {
  return /^\d{4}-\d{2}-\d{2}\.md$/.test(basename(file.path)) && basename(dirname(file.path)) === "memory";
}

/**
 * The folders from `cwd` up to the one holding `.git` (inclusive), or to the root when there is none,
 * that may hold an AGENTS.md. The workspace is listed: its listing answers "is `.git` here" and "is
 * there a prompt file" for the several files looked for there, where asking the file system for each
 * missing one would cost a failed call apiece on every run. A folder above it is asked only for
 * `.git` and AGENTS.md, by name: listing it would cost in proportion to all it holds (a folder of
 * workspaces, or /tmp, holds thousands), and a missing name is answered without an error object.
 */
async function walkToRepoRoot(
  cwd: string,
  listings: Map<string, Set<string> | undefined>,
): Promise<{ dirs: string[]; isGitRepo: boolean }> {
  const dirs = [cwd];
  const names = namesIn(cwd);
  listings.set(cwd, names);
  if (names ? names.has(".git") : await pathExists(join(cwd, ".git"))) return { dirs, isGitRepo: true };
  if (dirname(cwd) === cwd) return { dirs, isGitRepo: false };
  for (let dir = dirname(cwd); ; dir = dirname(dir)) {
    // An entry that cannot be looked at (no search permission) is tried all the same, as an unlisted folder's file is.
    if (entryAt(join(dir, "AGENTS.md")) !== false) dirs.push(dir);
    if (entryAt(join(dir, ".git")) === true) return { dirs, isGitRepo: true };
    if (dirname(dir) === dir) return { dirs, isGitRepo: false };
  }
}

/** Whether an entry of that name exists (a dangling link counts, as it does in a listing); undefined when it cannot be told. */
function entryAt(path: string): boolean | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lower-cased names in a folder, or undefined when it cannot be listed (then every file is
 * tried). Lower-cased so that a file system that ignores case still finds `agents.md`. Listed
 * synchronously: through the thread pool a listing cost several times its own CPU (a hand-off, a
 * wake-up and a promise for each of the four or five folders every run lists; ~100 against ~25 µs
 * for a folder of 28 names), and the names become strings on this thread either way.
 */
function namesIn(dir: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(dir).map((n) => n.toLowerCase()));
  } catch {
    return undefined;
  }
}

/**
 * False when a listed folder on the way to `path` lacks the next name: a daily log under a workspace
 * with no `memory` folder, say, is then not opened only to fail (a failed call costs an error object
 * apiece, on every run). True when no folder above it was listed.
 */
function mayExist(listings: ReadonlyMap<string, Set<string> | undefined>, path: string): boolean {
  for (let child = path, dir = dirname(path); dir !== child; child = dir, dir = dirname(dir)) {
    if (!listings.has(dir)) continue;
    const names = listings.get(dir);
    return names === undefined || names.has(basename(child).toLowerCase());
  }
  return true;
}

/**
 * The file's text, at most MAX_PROMPT_FILE_BYTES of it (with a note when cut), or undefined when it
 * cannot be read or is not a regular file (see `readRegularFile`).
 */
function readPromptFile(path: string): string | undefined {
  const file = readRegularFile(path, MAX_PROMPT_FILE_BYTES);
  if (!file) return undefined;
  const read = file.bytes.length;
  const cut = file.size > read;
  // `stream: true` holds back a character split by the cut instead of turning it into U+FFFD.
  const text = new TextDecoder().decode(file.bytes, { stream: cut });
  return cut ? `${text}\n[Only the first ${read} of ${file.size} bytes of this file were read.]` : text;
}
