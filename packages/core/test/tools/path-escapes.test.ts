import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPermissions, BUILTIN_AGENTS } from "../../src/agents/presets.js";
import { createPermissionAsk } from "../../src/permissions/ask.js";
import { grepTool } from "../../src/tools/builtin/grep.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { skillTool } from "../../src/tools/builtin/skill.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

/** The tools under the build agent's default rules; every ask is recorded and refused. */
function setup() {
  const cwd = tempDir("arbor-ws-");
  const outside = tempDir("arbor-outside-");
  const home = tempDir("arbor-home-");
  const prompts: string[] = [];
  const { ask } = createPermissionAsk({
    rules: agentPermissions({ agent: BUILTIN_AGENTS.build }),
    prompt: async (request) => {
      prompts.push(`${request.permission} ${request.patterns.join()}`);
      return "reject";
    },
  });
  const registry = new ToolRegistry().register(readTool(), writeTool(), grepTool(), skillTool({ arborHome: home }));
  const ctx = { ...fakeContext(cwd), ask };
  return { cwd, outside, prompts, run: (tool: string, input: unknown) => registry.invoke(tool, input, ctx) };
}

describe("paths are resolved through every link before the permission check", () => {
  it("write through a dangling symlink to outside asks external_directory and creates nothing there", async () => {
    const { cwd, outside, prompts, run } = setup();
    symlinkSync(join(outside, "created.txt"), join(cwd, "dangling.txt"));
    expect(await run("write", { path: "dangling.txt", content: "PWNED" })).toMatchObject({ code: "permission_rejected" });
    expect(existsSync(join(outside, "created.txt"))).toBe(false);
    expect(prompts).toEqual([`external_directory ${cwd}`]);
  });

  it("a dangling link through a chain of links and a missing folder is followed too", async () => {
    const { cwd, outside, run } = setup();
    symlinkSync(join(outside, "deep", "x.txt"), join(cwd, "hop2"));
    symlinkSync("hop2", join(cwd, "hop1"));
    expect(await run("write", { path: "hop1", content: "PWNED" })).toMatchObject({ code: "permission_rejected" });
    expect(existsSync(join(outside, "deep"))).toBe(false);
  });

  it("read through a link to .env is a read of .env, which asks", async () => {
    const { cwd, prompts, run } = setup();
    writeFileSync(join(cwd, ".env"), "KEY=SECRET\n");
    symlinkSync(".env", join(cwd, "notes.txt"));
    const out = await run("read", { path: "notes.txt" });
    expect(out).toMatchObject({ code: "permission_rejected" });
    expect(out.output).not.toContain("SECRET");
    expect(prompts).toEqual(["read .env"]);
  });

  it("skill does not return a SKILL.md linked from outside without an ask", async () => {
    const { cwd, outside, prompts, run } = setup();
    writeFileSync(join(outside, "private.md"), "---\nname: evil\n---\nTOP SECRET\n");
    mkdirSync(join(cwd, ".arbor", "skills", "evil"), { recursive: true });
    symlinkSync(join(outside, "private.md"), join(cwd, ".arbor", "skills", "evil", "SKILL.md"));
    const out = await run("skill", { name: "evil" });
    expect(out).toMatchObject({ code: "permission_rejected" });
    expect(out.output).not.toContain("TOP SECRET");
    expect(prompts).toEqual([`external_directory ${join(cwd, ".arbor", "skills", "evil")}`]);
  });

  it("grep applies the read rules: .env contents are not shown unasked, links out of the folder are not followed", async () => {
    const { cwd, outside, prompts, run } = setup();
    writeFileSync(join(cwd, ".env"), "KEY=SECRET\n");
    writeFileSync(join(cwd, ".env.example"), "KEY=example\n");
    writeFileSync(join(outside, "id_rsa"), "KEY=PRIVATE\n");
    symlinkSync(join(outside, "id_rsa"), join(cwd, "linked"));
    const all = await run("grep", { pattern: "KEY" });
    expect(all.isError).toBe(false);
    expect(all.output).toContain(".env.example:\n  Line 1: KEY=example");
    expect(all.output).not.toContain("SECRET");
    expect(all.output).not.toContain("PRIVATE");
    expect(all.output).toContain("(Left out: 1 file(s) whose reading was not allowed and 1 link(s) leading outside");
    const direct = await run("grep", { pattern: "KEY", path: ".env" });
    expect(direct.output).not.toContain("SECRET");
    expect(prompts).toEqual(["read .env", "read .env"]);
  });
});
