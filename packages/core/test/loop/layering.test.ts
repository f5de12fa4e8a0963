import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Every module a source file names: static imports and re-exports, dynamic imports. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) out.push(m[1]!);
  return out;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? tsFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/** `loop/x.ts -> plan/y.ts` for each import of a loop file that lands in one of `folders`. */
function importsInto(folders: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of tsFiles(join(src, "loop"))) {
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const target = relative(src, resolve(dirname(file), spec));
      if (folders.some((f) => target === f || target.startsWith(`${f}/`))) {
        found.push(`${relative(src, file)} -> ${target}`);
      }
    }
  }
  return found;
}

describe("the loop's layer", () => {
  it("finds the imports it looks for", () => {
    expect(
      specifiers('import { a } from "../plan/x.js";\nexport type { b } from "../goal/y.js";\nawait import("../subagents/z.js");'),
    ).toEqual(["../plan/x.js", "../goal/y.js", "../subagents/z.js"]);
  });

  it("names no feature: nothing in loop/ imports plan mode, the goal tree, the sub-agents or MCP", () => {
    expect(importsInto(["plan", "goal", "subagents", "mcp"])).toEqual([]);
  });

  it("sits under the runtime: nothing in loop/ imports the runtime that wires it", () => {
    expect(importsInto(["runtime", "runtime.js", "index.js", "internal.js"])).toEqual([]);
  });
});
