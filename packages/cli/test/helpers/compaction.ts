import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Prepares `ws` so a run in it compacts after a few reads: arbor.json gives the fake model a small
 * window, and big.txt is a file whose every read fills a good part of it.
 */
export async function writeSmallWindowWorkspace(ws: string): Promise<void> {
  await writeFile(
    join(ws, "arbor.json"),
    JSON.stringify({ models: { "openai-compatible/fake": { limit: { context: 8000, output: 1000 } } } }),
  );
  const lines = Array.from(
    { length: 150 },
    (_, i) => `line ${i + 1}: ${Array.from({ length: 12 }, (_, j) => `w${(i * 31 + j * 7) % 997}`).join(" ")}`,
  );
  await writeFile(join(ws, "big.txt"), `${lines.join("\n")}\n`);
}
