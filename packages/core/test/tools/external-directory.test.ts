import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { editTool } from "../../src/tools/builtin/edit.js";
import { globTool } from "../../src/tools/builtin/glob.js";
import { grepTool } from "../../src/tools/builtin/grep.js";
import { listTool } from "../../src/tools/builtin/list.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

function setup(answer: "allow" | "reject" = "allow") {
  const cwd = tempDir("arbor-ws-");
  const outside = tempDir("arbor-outside-");
  const ctx = fakeContext(cwd, { answer: (r) => (r.permission === "external_directory" ? answer : "allow") });
  const registry = new ToolRegistry().register(
    readTool(),
    writeTool(),
    editTool(),
    listTool(),
    globTool(),
    grepTool(),
    bashTool(),
  );
  return { cwd, outside, ctx, run: (tool: string, input: unknown) => registry.invoke(tool, input, ctx) };
}

const externalAsks = (asks: { permission: string; patterns: string[] }[]) =>
  asks.filter((a) => a.permission === "external_directory").map((a) => a.patterns);

describe("paths outside the workspace", () => {
  it("ask external_directory for the folder before reading, writing or editing", async () => {
    const { outside, ctx, run } = setup();
    writeFileSync(join(outside, "f.txt"), "old");
    expect((await run("read", { path: join(outside, "f.txt") })).isError).toBe(false);
    expect((await run("edit", { path: join(outside, "f.txt"), oldString: "old", newString: "new" })).isError).toBe(false);
    expect((await run("write", { path: join(outside, "sub", "g.txt"), content: "g" })).isError).toBe(false);
    expect(externalAsks(ctx.asks)).toEqual([[outside], [outside], [join(outside, "sub")]]);
    // Outside paths are matched by rules as absolute paths.
    expect(ctx.asks.find((a) => a.permission === "read")?.patterns).toEqual([join(outside, "f.txt")]);
  });

  it("relative paths that climb out are outside too", async () => {
    const parent = tempDir();
    const cwd = join(parent, "ws");
    mkdirSync(cwd);
    const ctx = fakeContext(cwd);
    await new ToolRegistry().register(writeTool()).invoke("write", { path: "../sibling/x.txt", content: "x" }, ctx);
    expect(externalAsks(ctx.asks)).toEqual([[join(parent, "sibling")]]);
    expect(readFileSync(join(parent, "sibling", "x.txt"), "utf8")).toBe("x");
  });

  it("a symlink inside the workspace that points out is outside", async () => {
    const { cwd, outside, ctx, run } = setup();
    writeFileSync(join(outside, "secret.txt"), "s");
    symlinkSync(outside, join(cwd, "link"));
    await run("read", { path: "link/secret.txt" });
    expect(externalAsks(ctx.asks)).toEqual([[join(cwd, "link")]]);
  });

  it("a rejected ask stops the tool before it acts", async () => {
    const { outside, run } = setup("reject");
    writeFileSync(join(outside, "f.txt"), "old");
    const edit = await run("edit", { path: join(outside, "f.txt"), oldString: "old", newString: "new" });
    expect(edit).toMatchObject({ isError: true, code: "permission_rejected" });
    const write = await run("write", { path: join(outside, "new.txt"), content: "n" });
    expect(write).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(readFileSync(join(outside, "f.txt"), "utf8")).toBe("old");
  });

  it("paths inside the workspace ask nothing extra", async () => {
    const { ctx, run } = setup();
    await run("write", { path: "in/side.txt", content: "ok" });
    await run("read", { path: "./in/../in/side.txt" });
    expect(externalAsks(ctx.asks)).toEqual([]);
  });

  it("folder tools and bash ask for the folder itself", async () => {
    const { outside, ctx, run } = setup();
    writeFileSync(join(outside, "notes.md"), "needle\n");
    expect((await run("list", { path: outside })).output).toBe(`${outside}/\n  notes.md`);
    expect((await run("glob", { pattern: "*.md", path: outside })).output).toBe(join(outside, "notes.md"));
    expect((await run("grep", { pattern: "needle", path: outside })).output).toContain(
      `${join(outside, "notes.md")}:\n  Line 1: needle`,
    );
    expect((await run("bash", { command: "ls", workdir: outside })).output).toBe("notes.md\n\n[exit code: 0]");
    expect(externalAsks(ctx.asks)).toEqual([[outside], [outside], [outside], [outside]]);
  });

  it("a search aborted before it starts reports aborted", async () => {
    const { ctx, run } = setup();
    ctx.controller.abort();
    expect(await run("grep", { pattern: "x" })).toMatchObject({ isError: true, code: "aborted" });
    expect(await run("glob", { pattern: "*" })).toMatchObject({ isError: true, code: "aborted" });
  });
});
