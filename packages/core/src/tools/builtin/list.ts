import { z } from "zod";
import { ArborError } from "../../errors.js";
import { globMatcher } from "../glob-pattern.js";
import { toolPath } from "../paths.js";
import { defineTool } from "../tool.js";
import { DEFAULT_IGNORED_DIRS, walk } from "../walk.js";
import { notFoundError, statOrUndefined } from "./fs-errors.js";

export const LIST_LIMIT = 200;

export const ListInputSchema = z.strictObject({
  path: z.string().min(1).optional().describe("Folder to list, relative to the workspace root (default: the root)."),
  ignore: z.array(z.string().min(1)).optional().describe('Extra globs to leave out, e.g. ["dist", "*.log"].'),
});

interface TreeNode {
  dirs: Map<string, TreeNode>;
  files: string[];
}

/**
 * A folder as an indented tree, folders first. Dependency and VCS folders (node_modules, .git, …)
 * are skipped because listing them drowns everything the model is looking for.
 */
export function listTool() {
  return defineTool({
    name: "list",
    effects: "none",
    description:
      "List a folder as a tree (folders first, then files). node_modules, .git and similar folders are skipped; " +
      "add globs in ignore to skip more. For finding files by name use glob.",
    input: ListInputSchema,
    async execute(input, ctx) {
      const { absolute, shown } = await toolPath(ctx, input.path ?? ".", "directory");
      await ctx.ask({ permission: "list", patterns: [shown], metadata: { path: absolute } });
      const info = await statOrUndefined(absolute);
      if (!info) throw await notFoundError(absolute, shown);
      if (!info.isDirectory()) {
        throw new ArborError("tool_failed", `${shown} is a file, not a folder. Use read to see its content.`);
      }

      const ignored = (input.ignore ?? []).map(globMatcher);
      const root: TreeNode = { dirs: new Map(), files: [] };
      const nodes = new Map<string, TreeNode>([["", root]]);
      let count = 0;
      const { truncated } = await walk(
        absolute,
        {
          ignoreDirs: DEFAULT_IGNORED_DIRS,
          skip: (rel) => ignored.some((match) => match(rel)),
          signal: ctx.abort,
          maxEntries: LIST_LIMIT,
        },
        (entry) => {
          count++;
          const slash = entry.relative.lastIndexOf("/");
          const parent = nodes.get(slash === -1 ? "" : entry.relative.slice(0, slash))!;
          const name = entry.relative.slice(slash + 1);
          if (entry.isDirectory) {
            const node: TreeNode = { dirs: new Map(), files: [] };
            parent.dirs.set(name, node);
            nodes.set(entry.relative, node);
          } else {
            parent.files.push(name);
          }
          return true;
        },
      );

      const lines = [`${shown === "." ? "." : shown}/`];
      render(root, 1, lines);
      if (count === 0) lines.push("  (empty)");
      if (truncated) lines.push(`\n(Showing the first ${LIST_LIMIT} entries. List a subfolder or use glob to narrow it down.)`);
      return { output: lines.join("\n"), title: shown, metadata: { count, truncated } };
    },
  });
}

function render(node: TreeNode, depth: number, lines: string[]): void {
  const indent = "  ".repeat(depth);
  for (const [name, child] of node.dirs) {
    lines.push(`${indent}${name}/`);
    render(child, depth + 1, lines);
  }
  for (const file of node.files) lines.push(`${indent}${file}`);
}
