import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { globTool } from "../../src/tools/builtin/glob.js";
import { grepTool } from "../../src/tools/builtin/grep.js";
import { listTool } from "../../src/tools/builtin/list.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

/** A small workspace; `age` gives each file an mtime so newest-first order is deterministic. */
function workspace() {
  const cwd = tempDir();
  const files: Record<string, [string, number]> = {
    "package.json": ['{ "name": "demo" }\n', 10],
    "src/index.ts": ["export function load() {}\nconst LOAD = 1;\n", 5],
    "src/util/strings.ts": ["export function pad() {}\n", 1],
    "src/util/strings.test.ts": ["import { pad } from './strings';\nload();\n", 3],
    "docs/readme.md": ["# Load things\n", 7],
    "node_modules/dep/index.js": ["function load() {}\n", 0],
    ".git/config": ["[core] load\n", 0],
    "bin/tool.bin": [Buffer.from([0, 1, 2, 108, 111, 97, 100]).toString("latin1"), 0],
  };
  const now = Date.now() / 1000;
  for (const [rel, [content, age]] of Object.entries(files)) {
    const path = join(cwd, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, "latin1");
    utimesSync(path, now - age * 60, now - age * 60);
  }
  mkdirSync(join(cwd, "empty"));
  const ctx = fakeContext(cwd);
  const registry = new ToolRegistry().register(listTool(), globTool(), grepTool());
  return { cwd, ctx, run: (tool: string, input: unknown) => registry.invoke(tool, input, ctx) };
}

describe("list", () => {
  it("shows a tree, folders first, without node_modules and .git", async () => {
    const { run, ctx } = workspace();
    const out = await run("list", {});
    expect(out.output).toBe(
      [
        "./",
        "  bin/",
        "    tool.bin",
        "  docs/",
        "    readme.md",
        "  empty/",
        "  src/",
        "    util/",
        "      strings.test.ts",
        "      strings.ts",
        "    index.ts",
        "  package.json",
      ].join("\n"),
    );
    expect(ctx.asks).toEqual([{ permission: "list", patterns: ["."], metadata: { path: ctx.cwd } }]);
  });

  it("lists a subfolder and honours extra ignores", async () => {
    const { run } = workspace();
    expect((await run("list", { path: "src", ignore: ["*.test.ts"] })).output).toBe(
      ["src/", "  util/", "    strings.ts", "  index.ts"].join("\n"),
    );
    expect((await run("list", { path: "empty" })).output).toBe("empty/\n  (empty)");
  });

  it("refuses files and missing folders", async () => {
    const { run } = workspace();
    expect((await run("list", { path: "package.json" })).output).toBe(
      "package.json is a file, not a folder. Use read to see its content.",
    );
    expect((await run("list", { path: "nowhere" })).output).toMatch(/^File not found: nowhere/);
    expect((await run("list", { path: 42 })).output).toMatch(/- path: .*expected string/);
  });
});

describe("glob", () => {
  it("matches names at any depth, newest first", async () => {
    const { run } = workspace();
    const out = await run("glob", { pattern: "*.ts" });
    expect(out.output).toBe(["src/util/strings.ts", "src/util/strings.test.ts", "src/index.ts"].join("\n"));
  });

  it("matches whole paths with ** and braces, within a folder", async () => {
    const { run } = workspace();
    expect((await run("glob", { pattern: "src/**/*.{md,json,ts}" })).output).toBe(
      ["src/util/strings.ts", "src/util/strings.test.ts", "src/index.ts"].join("\n"),
    );
    expect((await run("glob", { pattern: "**/*.md" })).output).toBe("docs/readme.md");
    expect((await run("glob", { pattern: "*.ts", path: "src/util" })).output).toBe(
      "src/util/strings.ts\nsrc/util/strings.test.ts",
    );
  });

  it("says when nothing matches and rejects bad globs", async () => {
    const { run } = workspace();
    expect((await run("glob", { pattern: "*.rs" })).output).toBe('No files match "*.rs" in ..');
    const bad = await run("glob", { pattern: "{a,b" });
    expect(bad).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(bad.output).toContain('unclosed "{"');
    expect((await run("glob", {})).output).toMatch(/- pattern: /);
  });
});

describe("grep", () => {
  it("finds lines by regex with line numbers, grouped by file, newest file first", async () => {
    const { run } = workspace();
    const out = await run("grep", { pattern: "load\\(" });
    expect(out.output).toBe(
      [
        "Found 2 matches.",
        "",
        "src/util/strings.test.ts:",
        "  Line 2: load();",
        "",
        "src/index.ts:",
        "  Line 1: export function load() {}",
      ].join("\n"),
    );
  });

  it("filters by include, searches one file, ignores case on request", async () => {
    const { run } = workspace();
    expect((await run("grep", { pattern: "load", include: "*.md", ignoreCase: true })).output).toBe(
      "Found 1 match.\n\ndocs/readme.md:\n  Line 1: # Load things",
    );
    expect((await run("grep", { pattern: "LOAD", path: "src/index.ts" })).output).toBe(
      "Found 1 match.\n\nsrc/index.ts:\n  Line 2: const LOAD = 1;",
    );
    expect((await run("grep", { pattern: "nothing-like-this" })).output).toBe("No matches for /nothing-like-this/ in ..");
  });

  it("caps the number of matches shown", async () => {
    const { cwd, run } = workspace();
    writeFileSync(join(cwd, "many.txt"), "hit\n".repeat(150));
    const out = await run("grep", { pattern: "^hit$" });
    expect(out.output.split("\n")[0]).toBe(
      "Found at least 150 matches; showing the first 100. Narrow the pattern, path or include.",
    );
    expect(out.output.match(/Line \d+: hit/g)).toHaveLength(100);
  });

  it("reports an invalid regular expression", async () => {
    const { run } = workspace();
    const out = await run("grep", { pattern: "(unclosed" });
    expect(out).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(out.output).toMatch(/^pattern is not a valid regular expression/);
  });
});
