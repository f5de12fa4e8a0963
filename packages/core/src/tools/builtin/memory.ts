import { z } from "zod";
import { appendMemory, type MemoryRoots, memoryPath, readMemoryFiles } from "../../memory/memory-files.js";
import { defineTool } from "../tool.js";

export interface MemoryToolOptions {
  /** `$ARBOR_HOME`, where user-level memories live. */
  arborHome: string;
  /** The time entries are dated with (the runtime's clock). Default: the system clock. */
  now?: () => number;
}

export const MemoryWriteInputSchema = z.strictObject({
  content: z.string().trim().min(1).max(4000).describe("The fact, preference or decision to remember, in a sentence or two."),
  target: z
    .enum(["daily", "long_term"])
    .default("daily")
    .describe("daily: today's log (memory/YYYY-MM-DD.md); long_term: MEMORY.md, read into every future run's prompt."),
  scope: z
    .enum(["workspace", "user"])
    .default("workspace")
    .describe("workspace: this project's memory; user: the user's memory across projects."),
});

export const MemorySearchInputSchema = z.strictObject({
  query: z.string().trim().min(1).describe("Words to look for in the memory files."),
  limit: z.number().int().min(1).max(50).default(8).describe("Most passages to return (default 8)."),
});

const rootsOf = (options: MemoryToolOptions, cwd: string): MemoryRoots => ({ cwd, arborHome: options.arborHome });

/** Writes a memory: one entry appended to MEMORY.md or to the day's log, under the workspace or `$ARBOR_HOME`. */
export function memoryWriteTool(options: MemoryToolOptions) {
  const now = options.now ?? Date.now;
  return defineTool({
    name: "memory_write",
    // A second run would store the note twice.
    effects: "at-most-once",
    description:
      "Remember something for later runs: a fact about the user or the project, a preference, a decision. " +
      "Long-term memories (MEMORY.md) are in every run's instructions; daily ones are in the next days' and searchable with memory_search.",
    input: MemoryWriteInputSchema,
    async execute(input, ctx) {
      const date = new Date(now());
      const path = memoryPath(rootsOf(options, ctx.cwd), input.scope, input.target, date);
      await ctx.ask({
        permission: "memory_write",
        patterns: [path],
        metadata: { path, target: input.target, scope: input.scope },
      });
      const time = date.toTimeString().slice(0, 5);
      const text = input.content.replace(/\n+/g, " ");
      await appendMemory(path, input.target === "daily" ? `- [${time}] ${text}\n` : `- ${text}\n`);
      return { output: `Remembered in ${path}.`, title: path, metadata: { path } };
    },
  });
}

/** Searches the memory files of both scopes, best passages first. */
export function memorySearchTool(options: MemoryToolOptions) {
  return defineTool({
    name: "memory_search",
    description:
      "Search what was remembered (MEMORY.md and the daily logs, of this project and the user) and return the best-matching passages.",
    input: MemorySearchInputSchema,
    effects: "none",
    async execute(input, ctx) {
      // The search modules (stemmer included) load with the first search.
      const { searchMemory } = await import("../../memory/memory-search.js");
      const hits = await searchMemory(await readMemoryFiles(rootsOf(options, ctx.cwd)), input.query, input.limit);
      if (hits.length === 0) return { output: `No memory matches "${input.query}".`, metadata: { hits: 0 } };
      const lines = hits.map((hit) => `[${hit.scope}:${hit.path}:${hit.line}] (score ${hit.score.toFixed(2)})\n${hit.text}`);
      return { output: lines.join("\n\n"), title: input.query, metadata: { hits: hits.length } };
    },
  });
}
