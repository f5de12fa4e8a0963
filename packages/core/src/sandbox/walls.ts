import { dirname, isAbsolute, resolve } from "node:path";

/**
 * The places a sandboxed command's output says it could not write: `…: Read-only file system`
 * (EROFS, the read-only view of the host) and `Permission denied` on an absolute path. Pure; the
 * folders are what a widening would open, never the root itself.
 */
export function writeWalls(output: string, cwd: string): string[] {
  const found = new Set<string>();
  const pattern = /(?:^|[\s'"`‘(])((?:\/|\.\.?\/)[^\s'"`’:)]*)['"`’]?\)?:?[^\n]*?(?:Read-only file system|EROFS)/gm;
  for (const match of output.matchAll(pattern)) {
    const raw = match[1]!;
    const path = isAbsolute(raw) ? resolve(raw) : resolve(cwd, raw);
    const folder = dirname(path);
    if (folder !== "/") found.add(folder);
  }
  return [...found];
}
