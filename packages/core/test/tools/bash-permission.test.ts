import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPermissions, BUILTIN_AGENTS } from "../../src/agents/presets.js";
import type { PermissionRule } from "../../src/model/permission-rule.js";
import { createPermissionAsk } from "../../src/permissions/ask.js";
import { rulesFromConfig } from "../../src/permissions/permission.js";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

/** A bash tool under real rules; every prompt is recorded and answered from `replies` (then reject). */
function setup(rules: PermissionRule[], replies: Array<"once" | "always" | "reject"> = []) {
  const cwd = tempDir();
  const prompts: string[] = [];
  const { ask } = createPermissionAsk({
    rules,
    prompt: async (request) => {
      prompts.push(`${request.permission}: ${request.patterns.join(" | ")}`);
      return replies.shift() ?? "reject";
    },
  });
  const ctx = { ...fakeContext(cwd), ask };
  const registry = new ToolRegistry().register(bashTool());
  return { cwd, prompts, run: (command: string) => registry.invoke("bash", { command }, ctx) };
}

const build = agentPermissions({ agent: BUILTIN_AGENTS.build });
const gitOnly = [...build, ...rulesFromConfig({ bash: { "*": "ask", "git *": "allow" } })];

describe("bash permissions see every command of a command line", () => {
  it('an "always" for `ls -la` approves that command only: not `ls -a`, not `ls -la && echo PWNED > file`', async () => {
    const { cwd, prompts, run } = setup([...build, ...rulesFromConfig({ bash: "ask" })], ["always", "reject"]);
    expect((await run("ls -la")).isError).toBe(false);
    expect((await run("ls -la")).isError).toBe(false);
    expect(await run("ls -a")).toMatchObject({ isError: true, code: "permission_rejected" });
    const out = await run("ls -la && echo PWNED > file");
    expect(out).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(existsSync(join(cwd, "file"))).toBe(false);
    expect(prompts).toEqual(["bash: ls -la", "bash: ls -a", "bash: ls -la | echo PWNED"]);
  });

  it.each([
    "git --version; echo PWNED > file",
    "git --version | tee file",
    "git log $(echo PWNED > file)",
    "git log `touch file`",
    "git log && (cd . && touch file)",
    "git log & touch file",
  ])("a rule allowing `git *` does not allow %s", async (command) => {
    const { cwd, prompts, run } = setup(gitOnly);
    expect(await run(command)).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(existsSync(join(cwd, "file"))).toBe(false);
    expect(prompts).toHaveLength(1);
  });

  it.each([
    `git -c alias.x="!touch file" x`,
    `git -calias.x='!touch file' x`,
    `git -c core.pager="touch file" log`,
    `git -c core.sshCommand="touch file" fetch origin`,
    `git -c core.hooksPath=hooks commit -m x`,
    `git -c filter.lfs.smudge="touch file" checkout .`,
    `git ls-remote --upload-pack="touch file" .`,
    `git clone -u "touch file" . copy`,
    `git fetch "ext::sh -c touch% file"`,
    `git rebase --exec "touch file" HEAD~1`,
    `git submodule foreach "touch file"`,
  ])("a rule allowing `git *` asks for %s, whose options make git run a program", async (command) => {
    const { cwd, prompts, run } = setup(gitOnly);
    expect(await run(command)).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(existsSync(join(cwd, "file"))).toBe(false);
    expect(prompts).toEqual([`bash: ${command} | (git runs a command) ${command}`]);
  });

  it("git options that run nothing stay covered by `git *`", async () => {
    const { prompts, run } = setup(gitOnly);
    expect((await run("git -c color.ui=false -c alias.st=status --version")).output).toContain("[exit code: 0]");
    expect(prompts).toEqual([]);
  });

  it("allowed commands still run as one command line", async () => {
    const { prompts, run } = setup(gitOnly);
    const out = await run("git --version && git --version | git --version >/dev/null 2>&1");
    expect(out.output).toContain("[exit code: 0]");
    expect(prompts).toEqual([]);
  });

  it("a command line that cannot be parsed asks even where its program is allowed, and a deny still denies it", async () => {
    const { prompts, run } = setup(gitOnly);
    expect(await run("git log; echo 'unterminated > file")).toMatchObject({ code: "permission_rejected" });
    expect(prompts).toEqual(["bash: git log; echo 'unterminated > file | (unparsed) git log; echo 'unterminated > file"]);
    const denied = setup([...build, ...rulesFromConfig({ bash: { "rm *": "deny" } })]);
    expect(await denied.run("rm -rf x; echo 'oops")).toMatchObject({ code: "permission_denied" });
    expect(denied.prompts).toEqual([]);
  });

  it("a redirection that writes a file is an edit of it: denied where editing is denied, asked outside the workspace", async () => {
    const plan = setup([...agentPermissions({ agent: BUILTIN_AGENTS.plan }), ...rulesFromConfig({ bash: "allow" })]);
    expect(await plan.run("echo PWNED > out.txt")).toMatchObject({ isError: true, code: "permission_denied" });
    expect(existsSync(join(plan.cwd, "out.txt"))).toBe(false);
    expect(await plan.run('echo PWNED >> "$HOME/x"')).toMatchObject({ code: "permission_denied" });
    expect((await plan.run("echo fine > /dev/null 2>&1")).output).toContain("[exit code: 0]");

    const outside = tempDir();
    const { prompts, run } = setup(build);
    expect(await run(`echo PWNED > ${outside}/file`)).toMatchObject({ code: "permission_rejected" });
    expect(existsSync(join(outside, "file"))).toBe(false);
    expect(prompts).toEqual([`external_directory: ${outside}`]);
  });
});
