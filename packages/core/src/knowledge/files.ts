import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** The files under a path (the path itself when it is a file), hidden folders and node_modules left out. */
export async function walkFiles(path: string, skipped: Array<{ path: string; reason: string }>): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    skipped.push({ path, reason: "does not exist" });
    return [];
  }
  if (info.isFile()) return [path];
  if (!info.isDirectory()) {
    skipped.push({ path, reason: "not a file or folder" });
    return [];
  }
  const out: string[] = [];
  const stack = [path];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) out.push(full);
    }
  }
  return out.sort();
}
