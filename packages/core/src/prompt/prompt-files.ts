import { resolve } from "node:path";
import { type LoadPromptContextOptions, loadPromptContext, type PromptContext } from "./instructions.js";

/** Reads a workspace's prompt files (see `loadPromptContext`); the runtime's default reads them on every call. */
export interface PromptFiles {
  load(options: LoadPromptContextOptions): Promise<PromptContext>;
}

/** Reads the files anew on every call: a run of its own sees them as they are when it starts. */
export const freshPromptFiles: PromptFiles = { load: loadPromptContext };

/**
 * Reads each workspace's files once for all who ask: the branches of one sub-agent batch start
 * together, and each re-read the same AGENTS.md chain, skill folders and memory files a moment after
 * the others (3–4% of a sub-trace's CPU). Made per batch, so a later batch sees files changed since.
 * The read itself takes no caller's signal (one branch aborted must not fail its siblings' prompts);
 * each caller checks its own once the read is done. `read` is the reader (a test's counts its calls).
 */
export function promptFilesOnce(read: PromptFiles["load"] = loadPromptContext): PromptFiles {
  const reads = new Map<string, Promise<PromptContext>>();
  return {
    async load(options) {
      options.signal?.throwIfAborted();
      const key = readKey(options);
      let once = reads.get(key);
      if (!once) {
        const { signal: _own, ...shared } = options;
        once = read(shared);
        reads.set(key, once);
        // A failed read is not kept: the next caller tries again.
        once.catch(() => reads.delete(key));
      }
      const context = await once;
      options.signal?.throwIfAborted();
      return context;
    },
  };
}

/** What the files read depend on: the folders, and which daily logs (by local day) and how much memory. */
function readKey(options: LoadPromptContextOptions): string {
  const { memory } = options;
  const day = memory ? `${memory.date.getFullYear()}-${memory.date.getMonth()}-${memory.date.getDate()}` : "";
  return [resolve(options.cwd), resolve(options.arborHome), day, memory?.days ?? "", memory?.maxTokens ?? ""].join("\0");
}
