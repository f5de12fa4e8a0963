import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/builtin/edit.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

function setup() {
  const cwd = tempDir();
  const ctx = fakeContext(cwd);
  const registry = new ToolRegistry().register(writeTool(), editTool());
  return { cwd, ctx, run: (tool: string, input: unknown) => registry.invoke(tool, input, ctx) };
}

describe("write", () => {
  it("creates missing parent folders, then overwrites", async () => {
    const { cwd, ctx, run } = setup();
    const created = await run("write", { path: "deep/er/file.txt", content: "one" });
    expect(created).toMatchObject({ isError: false, output: "Created deep/er/file.txt (3 bytes).", title: "deep/er/file.txt" });
    expect(readFileSync(join(cwd, "deep/er/file.txt"), "utf8")).toBe("one");
    const again = await run("write", { path: "deep/er/file.txt", content: "two!" });
    expect(again.output).toBe("Overwrote deep/er/file.txt (4 bytes).");
    expect(ctx.asks.map((a) => [a.permission, a.patterns])).toEqual([
      ["edit", ["deep/er/file.txt"]],
      ["edit", ["deep/er/file.txt"]],
    ]);
  });

  it("refuses a directory and missing content", async () => {
    const { run } = setup();
    expect((await run("write", { path: ".", content: "x" })).output).toBe(". is a directory; give a file path to write.");
    expect((await run("write", { path: "a.txt" })).output).toMatch(/- content: .*expected string/);
  });
});

describe("edit", () => {
  it("replaces one exact occurrence", async () => {
    const { cwd, run } = setup();
    writeFileSync(join(cwd, "a.ts"), "const a = 1;\nconst b = 2;\n");
    const out = await run("edit", { path: "a.ts", oldString: "const b = 2;", newString: "const b = $&3;" });
    expect(out).toMatchObject({ isError: false, output: "Edited a.ts: replaced 1 occurrence." });
    expect(readFileSync(join(cwd, "a.ts"), "utf8")).toBe("const a = 1;\nconst b = $&3;\n");
  });

  it("fails without changing anything when the old text is missing or not unique", async () => {
    const { cwd, run } = setup();
    const original = "x = 1\nx = 1\n";
    writeFileSync(join(cwd, "dup.py"), original);
    const missing = await run("edit", { path: "dup.py", oldString: "y = 1", newString: "y = 2" });
    expect(missing).toMatchObject({ isError: true, code: "tool_failed" });
    expect(missing.output).toMatch(/^oldString was not found in dup\.py; the file is unchanged/);
    const twice = await run("edit", { path: "dup.py", oldString: "x = 1", newString: "x = 2" });
    expect(twice).toMatchObject({ isError: true, code: "tool_failed" });
    expect(twice.output).toMatch(/^oldString occurs 2 times in dup\.py; the file is unchanged/);
    expect(twice.output).toContain("replaceAll");
    expect(readFileSync(join(cwd, "dup.py"), "utf8")).toBe(original);
  });

  it("replaces every occurrence with replaceAll", async () => {
    const { cwd, run } = setup();
    writeFileSync(join(cwd, "dup.py"), "x = 1\nx = 1\n");
    const out = await run("edit", { path: "dup.py", oldString: "x = 1", newString: "x = 2", replaceAll: true });
    expect(out.output).toBe("Edited dup.py: replaced 2 occurrences.");
    expect(readFileSync(join(cwd, "dup.py"), "utf8")).toBe("x = 2\nx = 2\n");
  });

  it("matches LF text in a CRLF file and keeps CRLF", async () => {
    const { cwd, run } = setup();
    writeFileSync(join(cwd, "win.txt"), "a\r\nb\r\nc\r\n");
    const out = await run("edit", { path: "win.txt", oldString: "a\nb", newString: "A\nB" });
    expect(out.isError).toBe(false);
    expect(readFileSync(join(cwd, "win.txt"), "utf8")).toBe("A\r\nB\r\nc\r\n");
  });

  it("rejects bad arguments: identical strings, empty oldString, wrong field names, missing file", async () => {
    const { cwd, run } = setup();
    writeFileSync(join(cwd, "a.txt"), "hello");
    expect((await run("edit", { path: "a.txt", oldString: "hello", newString: "hello" })).output).toMatch(/identical/);
    expect((await run("edit", { path: "a.txt", oldString: "", newString: "x" })).output).toMatch(/- oldString: /);
    const snake = await run("edit", { path: "a.txt", old_string: "hello", new_string: "bye" });
    expect(snake).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(snake.output).toContain("- oldString:");
    expect(snake.output).toContain('"old_string", "new_string": not a parameter of this tool');
    expect((await run("edit", { path: "nope.txt", oldString: "a", newString: "b" })).output).toMatch(
      /^File not found: nope\.txt/,
    );
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello");
  });
});
