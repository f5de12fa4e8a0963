import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryTodoStore } from "../../src/todos/todo-store.js";
import { todoReadTool } from "../../src/todos/todoread.js";
import { todoWriteTool } from "../../src/todos/todowrite.js";
import { skillTool } from "../../src/tools/builtin/skill.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { parseFrontMatter } from "../../src/tools/skills.js";
import { fakeContext, tempDir } from "./helpers.js";

describe("todowrite / todoread", () => {
  function setup() {
    const todos = new MemoryTodoStore();
    const registry = new ToolRegistry().register(todoWriteTool({ todos }), todoReadTool({ todos }));
    const cwd = tempDir();
    return { todos, registry, a: fakeContext(cwd, { sessionId: "ses_a" }), b: fakeContext(cwd, { sessionId: "ses_b" }) };
  }

  it("keeps one list per session and reads it back", async () => {
    const { registry, a, b } = setup();
    const written = await registry.invoke(
      "todowrite",
      {
        todos: [
          { content: "Read the failing test", status: "completed" },
          { content: "Fix the parser", status: "in_progress", priority: "high" },
          { content: "Run the suite", status: "pending" },
          { content: "Rewrite in Rust", status: "cancelled", priority: "low" },
        ],
      },
      a,
    );
    const rendered =
      "[✓] Read the failing test\n[→] (high) Fix the parser\n[ ] Run the suite\n[✗] (low) Rewrite in Rust\n\n2 of 4 open.";
    expect(written).toMatchObject({ isError: false, title: "2 todos", output: rendered });
    expect(a.progress[0]?.title).toBe("2 todos");
    expect((await registry.invoke("todoread", {}, a)).output).toBe(rendered);
    expect((await registry.invoke("todoread", {}, b)).output).toBe("(no todos)");
  });

  it("replaces the list on each write and rejects malformed items", async () => {
    const { registry, a } = setup();
    await registry.invoke("todowrite", { todos: [{ content: "x", status: "pending" }] }, a);
    await registry.invoke("todowrite", { todos: [] }, a);
    expect((await registry.invoke("todoread", {}, a)).output).toBe("(no todos)");
    const bad = await registry.invoke("todowrite", { todos: [{ content: "x", status: "doing" }] }, a);
    expect(bad).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(bad.output).toMatch(/- todos\.0\.status: /);
  });
});

describe("skill", () => {
  function setup() {
    const cwd = tempDir();
    const home = tempDir();
    const write = (root: string, folder: string, text: string) => {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, "SKILL.md"), text);
    };
    write(
      join(cwd, ".arbor", "skills"),
      "release",
      "---\nname: release\ndescription: Cut a release of this repo\n---\n\nRun scripts/release.sh.\n",
    );
    write(join(home, "skills"), "release", "---\nname: release\ndescription: user-level release\n---\nshadowed\n");
    write(
      join(home, "skills"),
      "pdf-tools",
      '---\nname: "pdf"\ndescription: >\n  Fill and split\n  PDF files\n---\n# PDF\nUse scripts/fill.py.\n',
    );
    write(join(home, "skills"), "bare", "No front matter here.\n");
    mkdirSync(join(home, "skills", "no-skill-file"));
    const ctx = fakeContext(cwd);
    const registry = new ToolRegistry().register(skillTool({ arborHome: home }));
    return { cwd, home, ctx, run: (input: unknown) => registry.invoke("skill", input, ctx) };
  }

  it("lists project and user skills; a project skill overrides a user one of the same name", async () => {
    const { run } = setup();
    expect((await run({})).output).toBe(
      "- bare: (no description)\n- pdf: Fill and split PDF files\n- release: Cut a release of this repo",
    );
  });

  it("loads a skill's body with its base directory, after asking", async () => {
    const { cwd, home, ctx, run } = setup();
    const release = await run({ name: "release" });
    expect(release.output).toBe(
      `# Skill: release\n\nBase directory: ${join(cwd, ".arbor", "skills", "release")} (paths in this skill are relative to it)\n\nRun scripts/release.sh.`,
    );
    expect(ctx.asks).toEqual([
      { permission: "skill", patterns: ["release"], metadata: { path: join(cwd, ".arbor", "skills", "release", "SKILL.md") } },
    ]);
    const pdf = await run({ name: "pdf" });
    expect(pdf.output).toContain(`Base directory: ${join(home, "skills", "pdf-tools")}`);
    expect(pdf.output).toMatch(/# PDF\nUse scripts\/fill\.py\.$/);
  });

  it("names the available skills when asked for an unknown one", async () => {
    const { run } = setup();
    const out = await run({ name: "deploy" });
    expect(out).toMatchObject({ isError: true, code: "tool_failed" });
    expect(out.output).toBe('No skill named "deploy". Available: bare, pdf, release.');
  });

  it("says so when there are none", async () => {
    const registry = new ToolRegistry().register(skillTool({ arborHome: tempDir() }));
    expect((await registry.invoke("skill", {}, fakeContext(tempDir()))).output).toBe("No skills are installed.");
  });
});

describe("parseFrontMatter", () => {
  it("reads flat keys, quotes and block scalars, and returns the body", () => {
    expect(parseFrontMatter("---\r\na: 'x: y'\r\nb: |\r\n  one\r\n  two\r\nc: plain\r\n---\r\nbody\r\n")).toEqual({
      attributes: { a: "x: y", b: "one\ntwo", c: "plain" },
      body: "body\n",
    });
    expect(parseFrontMatter("no front matter")).toEqual({ attributes: {}, body: "no front matter" });
    expect(parseFrontMatter("---\nunclosed: yes\n")).toEqual({ attributes: {}, body: "---\nunclosed: yes\n" });
  });
});
