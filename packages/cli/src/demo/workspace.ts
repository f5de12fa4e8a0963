import { copyFile, mkdir, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_DIR } from "./recording.js";

async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyTree(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile()) await copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/**
 * A fresh copy of the demo project in a new temporary directory: the run edits it for real, so each
 * demo starts from the bug. It is left in place afterwards for the user to look at.
 */
export async function makeDemoWorkspace(source = join(DEMO_DIR, "workspace")): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "arbor-demo-"));
  await copyTree(source, dir);
  return dir;
}
