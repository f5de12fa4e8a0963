import { isPermissionRefusal } from "../permissions/ask.js";
import { displayPath, isInside, resolveLinks } from "./paths.js";
import type { ToolContext } from "./tool.js";

export interface ReadAccess {
  /** Each readable file (as found) with the path shown for it, links followed. */
  readable: Map<string, string>;
  /** Files the `read` rules or the user refused. */
  refused: number;
  /** Files that are links leading out of the searched folder, which a search does not follow. */
  outside: number;
}

/**
 * The same rules as `read` for a tool that shows file contents it found itself (grep's matches):
 * each file is resolved through its links and must stay inside the folder searched, and `read` is
 * asked for it, so a `.env` the read tool would ask about is asked about here too. A refusal
 * leaves that file out instead of failing the whole search.
 */
export async function readableFiles(ctx: ToolContext, searchedRoot: string, files: readonly string[]): Promise<ReadAccess> {
  const root = await resolveLinks(searchedRoot);
  const access: ReadAccess = { readable: new Map(), refused: 0, outside: 0 };
  for (const file of files) {
    const real = await resolveLinks(file);
    if (!isInside(root, real)) {
      access.outside++;
      continue;
    }
    const shown = displayPath(ctx.cwd, real);
    try {
      await ctx.ask({ permission: "read", patterns: [shown], metadata: { path: real } });
    } catch (err) {
      if (!isPermissionRefusal(err)) throw err;
      access.refused++;
      continue;
    }
    access.readable.set(file, shown);
  }
  return access;
}

/** A note on what a search left out, or "" when nothing was. */
export function leftOutNote(access: ReadAccess): string {
  const parts: string[] = [];
  if (access.refused > 0) parts.push(`${access.refused} file(s) whose reading was not allowed`);
  if (access.outside > 0) parts.push(`${access.outside} link(s) leading outside the searched folder`);
  return parts.length === 0 ? "" : `(Left out: ${parts.join(" and ")}.)`;
}
