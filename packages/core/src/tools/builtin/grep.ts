import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import { cutText } from "../../model/text.js";
import { globMatcher } from "../glob-pattern.js";
import { toolPath } from "../paths.js";
import { leftOutNote, readableFiles } from "../read-access.js";
import { defineTool } from "../tool.js";
import { abortedError, walk } from "../walk.js";
import { looksBinary } from "./binary.js";
import { notFoundError, statOrUndefined } from "./fs-errors.js";

export const GREP_LIMIT = 100;
/** Matches collected before stopping; enough to sort the shown ones by file age meaningfully. */
const COLLECT_LIMIT = 1000;
/** Larger files are skipped: they are data or generated, and would stall the search. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE_CHARS = 500;
const MAX_WALK_ENTRIES = 100_000;

export const GrepInputSchema = z.strictObject({
  pattern: z.string().min(1).describe("JavaScript regular expression to search for, e.g. 'function\\s+load'."),
  path: z.string().min(1).optional().describe("Folder or file to search, relative to the workspace root (default: the root)."),
  include: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{js,jsx}".'),
  ignoreCase: z.boolean().optional().describe("Match case-insensitively."),
});

interface Match {
  file: string;
  mtime: number;
  line: number;
  text: string;
}

/** Lines matching a regular expression, grouped by file, files most recently modified first. */
export function grepTool() {
  return defineTool({
    name: "grep",
    effects: "none",
    description:
      "Search file contents with a regular expression. Returns matching lines with line numbers, grouped by file " +
      `(most recently modified first), at most ${GREP_LIMIT}. Use include to filter files by glob. Binary files, ` +
      "files over 5 MB, node_modules and .git are skipped.",
    input: GrepInputSchema,
    async execute(input, ctx) {
      let regex: RegExp;
      try {
        regex = new RegExp(input.pattern, input.ignoreCase ? "i" : "");
      } catch (err) {
        throw new ArborError("invalid_tool_input", `pattern is not a valid regular expression: ${(err as Error).message}`);
      }
      const include = input.include ? globMatcher(input.include) : undefined;
      const { absolute, shown } = await toolPath(ctx, input.path ?? ".", "directory");
      await ctx.ask({ permission: "grep", patterns: [input.pattern], metadata: { path: absolute } });
      const info = await statOrUndefined(absolute);
      if (!info) throw await notFoundError(absolute, shown);

      const files: string[] = [];
      let walkCut = false;
      if (info.isDirectory()) {
        ({ truncated: walkCut } = await walk(absolute, { signal: ctx.abort, maxEntries: MAX_WALK_ENTRIES }, (entry) => {
          if (entry.isFile && (!include || include(entry.relative))) files.push(entry.path);
          return true;
        }));
      } else {
        files.push(absolute);
      }

      const found: Match[] = [];
      for (const file of files) {
        if (ctx.abort.aborted) throw abortedError();
        if (found.length >= COLLECT_LIMIT) break;
        await searchFile(file, regex, found);
      }
      const access = await readableFiles(ctx, info.isDirectory() ? absolute : dirname(absolute), [
        ...new Set(found.map((m) => m.file)),
      ]);
      const matches = found.filter((m) => access.readable.has(m.file));
      const leftOut = leftOutNote(access);
      if (matches.length === 0) {
        const none = `No matches for /${input.pattern}/ in ${shown}.${leftOut ? ` ${leftOut}` : ""}`;
        return { output: none, title: input.pattern, metadata: { matches: 0 } };
      }
      matches.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
      const shownMatches = matches.slice(0, GREP_LIMIT);
      const lines: string[] = [];
      let current = "";
      for (const m of shownMatches) {
        if (m.file !== current) {
          if (current !== "") lines.push("");
          current = m.file;
          lines.push(`${access.readable.get(m.file)}:`);
        }
        lines.push(`  Line ${m.line}: ${m.text}`);
      }
      const more = matches.length > GREP_LIMIT;
      const header = more
        ? `Found at least ${matches.length} matches; showing the first ${GREP_LIMIT}. Narrow the pattern, path or include.`
        : `Found ${matches.length} match${matches.length === 1 ? "" : "es"}.`;
      const notes = [
        ...(walkCut ? [`(Stopped after ${MAX_WALK_ENTRIES} entries; search a subfolder for complete results.)`] : []),
        ...(leftOut ? [leftOut] : []),
      ];
      const footer = notes.map((note) => `\n\n${note}`).join("");
      return {
        output: `${header}\n\n${lines.join("\n")}${footer}`,
        title: input.pattern,
        metadata: { matches: matches.length, truncated: more || walkCut },
      };
    },
  });
}

async function searchFile(file: string, regex: RegExp, matches: Match[]): Promise<void> {
  let buffer: Buffer;
  let mtime: number;
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return;
    mtime = info.mtimeMs;
    buffer = await readFile(file);
  } catch {
    return; // Vanished or unreadable since the walk: not worth failing the search.
  }
  if (looksBinary(buffer.subarray(0, 8192))) return;
  const lines = buffer.toString("utf8").split("\n");
  for (let i = 0; i < lines.length && matches.length < COLLECT_LIMIT; i++) {
    const raw = lines[i]!.endsWith("\r") ? lines[i]!.slice(0, -1) : lines[i]!;
    if (!regex.test(raw)) continue;
    const text = cutText(raw, MAX_LINE_CHARS);
    matches.push({ file, mtime, line: i + 1, text });
  }
}
