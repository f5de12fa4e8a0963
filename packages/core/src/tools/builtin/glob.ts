import { stat } from "node:fs/promises";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import { globMatcher } from "../glob-pattern.js";
import { displayPath, toolPath } from "../paths.js";
import { defineTool } from "../tool.js";
import { walk } from "../walk.js";
import { notFoundError, statOrUndefined } from "./fs-errors.js";

export const GLOB_LIMIT = 100;
/** Files examined before giving up; keeps a glob over a huge tree from running for minutes. */
const MAX_WALK_ENTRIES = 100_000;

export const GlobInputSchema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('Glob such as "**/*.ts" or "src/**/test_*.py". Without a "/" it matches file names at any depth.'),
  path: z.string().min(1).optional().describe("Folder to search in, relative to the workspace root (default: the root)."),
});

/**
 * Files matching a glob, newest first (as OpenCode sorts them): the files being worked on are
 * usually the recently changed ones.
 */
export function globTool() {
  return defineTool({
    name: "glob",
    effects: "none",
    description:
      'Find files by glob pattern ("**/*.ts", "src/**/*.{js,jsx}", "*.md"). Returns paths, most recently modified first, ' +
      `at most ${GLOB_LIMIT}. node_modules and .git are skipped.`,
    input: GlobInputSchema,
    async execute(input, ctx) {
      const { absolute, shown } = await toolPath(ctx, input.path ?? ".", "directory");
      await ctx.ask({ permission: "glob", patterns: [input.pattern], metadata: { path: absolute } });
      const info = await statOrUndefined(absolute);
      if (!info) throw await notFoundError(absolute, shown);
      if (!info.isDirectory()) throw new ArborError("tool_failed", `${shown} is a file; glob searches a folder.`);

      const match = globMatcher(input.pattern);
      const found: string[] = [];
      const { truncated: walkCut } = await walk(absolute, { signal: ctx.abort, maxEntries: MAX_WALK_ENTRIES }, (entry) => {
        if (entry.isFile && match(entry.relative)) found.push(entry.path);
        return true;
      });
      const withTimes = await Promise.all(
        found.map(async (path) => ({
          path,
          mtime: await stat(path).then(
            (s) => s.mtimeMs,
            () => 0,
          ),
        })),
      );
      withTimes.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

      if (withTimes.length === 0) {
        return { output: `No files match "${input.pattern}" in ${shown}.`, title: input.pattern, metadata: { count: 0 } };
      }
      const shownPaths = withTimes.slice(0, GLOB_LIMIT).map((f) => displayPath(ctx.cwd, f.path));
      const notes: string[] = [];
      if (withTimes.length > GLOB_LIMIT) {
        notes.push(`(Showing ${GLOB_LIMIT} of ${withTimes.length} files, newest first. Use a narrower pattern or path.)`);
      }
      if (walkCut) notes.push(`(Stopped after ${MAX_WALK_ENTRIES} entries; search a subfolder for complete results.)`);
      return {
        output: [shownPaths.join("\n"), ...notes].join("\n\n"),
        title: input.pattern,
        metadata: { count: withTimes.length, truncated: withTimes.length > GLOB_LIMIT || walkCut },
      };
    },
  });
}
