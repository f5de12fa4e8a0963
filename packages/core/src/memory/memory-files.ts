import { appendFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/** Where memories live: the workspace's own, or the user's across workspaces (`$ARBOR_HOME`). */
export type MemoryScope = "workspace" | "user";
/** `long_term` is MEMORY.md (read into every run's prompt); `daily` is the day's log, memory/YYYY-MM-DD.md. */
export type MemoryTarget = "long_term" | "daily";

export interface MemoryRoots {
  cwd: string;
  arborHome: string;
}

/** The day's name in local time, as the daily log's file is named. */
export function dayName(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function memoryPath(roots: MemoryRoots, scope: MemoryScope, target: MemoryTarget, date: Date): string {
  const root = scope === "user" ? roots.arborHome : roots.cwd;
  return target === "long_term" ? join(root, "MEMORY.md") : join(root, "memory", `${dayName(date)}.md`);
}

/** The daily logs of the last `days` days (oldest first), user-level before the workspace's. */
export function recentDailyLogPaths(roots: MemoryRoots, date: Date, days: number): string[] {
  const paths: string[] = [];
  for (let back = days - 1; back >= 0; back--) {
    const day = new Date(date.getFullYear(), date.getMonth(), date.getDate() - back);
    for (const root of [roots.arborHome, roots.cwd]) paths.push(join(root, "memory", `${dayName(day)}.md`));
  }
  return [...new Set(paths)];
}

/**
 * Appends one entry to a memory file. Writers in other processes (or other runtimes of this one)
 * take turns through a lock file next to it, and each entry goes out in one append, so concurrent
 * writers never interleave or lose an entry.
 */
export async function appendMemory(path: string, entry: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // The lock needs the file to exist; "a" creates it empty without touching what is there.
  await writeFile(path, "", { flag: "a" });
  // Many short waits: a memory append holds the lock for a millisecond or two.
  // Loaded on use: it patches node:fs as it loads, a cost every importer of core would pay.
  const { default: lockfile } = await import("proper-lockfile");
  const release = await lockfile.lock(path, {
    retries: { retries: 500, factor: 1.2, minTimeout: 2, maxTimeout: 40, randomize: true },
    stale: 10_000,
    realpath: false,
  });
  try {
    await appendFile(path, entry);
  } finally {
    await release();
  }
}

/** One memory file's text, with the path it is shown under (relative to its root). */
export interface MemoryDocument {
  path: string;
  scope: MemoryScope;
  text: string;
}

/** Every memory file of both scopes: MEMORY.md and the daily logs. Missing folders are simply empty. */
export async function readMemoryFiles(roots: MemoryRoots): Promise<MemoryDocument[]> {
  const docs: MemoryDocument[] = [];
  for (const [scope, root] of [
    ["user", roots.arborHome],
    ["workspace", roots.cwd],
  ] as const) {
    const names = ["MEMORY.md", ...(await listDailyLogs(join(root, "memory"))).map((n) => join("memory", n))];
    for (const name of names) {
      const text = await readFile(join(root, name), "utf8").catch(() => undefined);
      if (text !== undefined && text.trim() !== "") docs.push({ path: relative(root, join(root, name)), scope, text });
    }
    if (roots.arborHome === roots.cwd) break;
  }
  return docs;
}

async function listDailyLogs(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => /^\d{4}-\d{2}-\d{2}\.md$/.test(n)).sort();
}
