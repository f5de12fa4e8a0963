import { ArborError } from "../errors.js";

/**
 * File globs for the `glob` and `grep` tools (pure). Supported: `*` (within one path segment),
 * `**` (any number of segments), `?`, `[abc]` / `[!abc]` / `[a-z]`, and `{a,b}` (nestable).
 * Paths are relative and use `/`.
 */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const next = glob[i + 2];
        if (atSegmentStart && next === "/") {
          re += "(?:[^/]*/)*"; // `**/`: zero or more whole segments
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else {
        re += "[^/]*";
      }
    } else if (c === "?") {
      re += "[^/]";
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        re += "\\[";
      } else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else if (c === "{") {
      braceDepth++;
      re += "(?:";
    } else if (c === "}" && braceDepth > 0) {
      braceDepth--;
      re += ")";
    } else if (c === "," && braceDepth > 0) {
      re += "|";
    } else {
      re += c.replace(/[.+^$()|\\{}[\]]/g, "\\$&");
    }
  }
  if (braceDepth > 0) {
    throw new ArborError("invalid_tool_input", `The glob "${glob}" has an unclosed "{"; close each {a,b} group.`, { glob });
  }
  try {
    return new RegExp(`^${re}$`);
  } catch (err) {
    throw new ArborError("invalid_tool_input", `The glob "${glob}" is not valid: ${(err as Error).message}`, { glob });
  }
}

/**
 * A matcher over workspace-relative paths. As in ripgrep and .gitignore, a glob without a `/`
 * matches the file name at any depth (`*.ts` finds `src/a/b.ts`); one with a `/` matches the
 * whole relative path (`src/**\/*.ts`).
 */
export function globMatcher(glob: string): (relativePath: string) => boolean {
  const normalized = glob.startsWith("./") ? glob.slice(2) : glob;
  const re = globToRegExp(normalized);
  if (!normalized.includes("/")) {
    return (path) => re.test(path.slice(path.lastIndexOf("/") + 1));
  }
  return (path) => re.test(path);
}
