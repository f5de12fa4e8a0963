import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPromptContext, MAX_PROMPT_FILE_BYTES } from "../../src/prompt/instructions.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** realpath so macOS /var links compare equal with the paths the loader reports. */
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "arbor-prompt-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(path: string, content: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** A repository with the workspace two folders down, and a separate $ARBOR_HOME. */
function layout() {
  const root = tempDir();
  const repo = join(root, "repo");
  const cwd = join(repo, "packages", "app");
  const home = join(root, "home");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { root, repo, cwd, home };
}

describe("loadPromptContext", () => {
  it("finds AGENTS.md from the workspace up to the git root, after the user-level one", async () => {
    const { root, repo, cwd, home } = layout();
    write(join(root, "AGENTS.md"), "above the repo: not read");
    write(join(repo, "AGENTS.md"), "repo rules");
    write(join(repo, "packages", "AGENTS.md"), "packages rules");
    write(join(cwd, "AGENTS.md"), "app rules");
    write(join(home, "AGENTS.md"), "user rules");

    const context = await loadPromptContext({ cwd, arborHome: home });
    expect(context.isGitRepo).toBe(true);
    expect(context.instructions).toEqual([
      { path: join(home, "AGENTS.md"), content: "user rules" },
      { path: join(repo, "AGENTS.md"), content: "repo rules" },
      { path: join(repo, "packages", "AGENTS.md"), content: "packages rules" },
      { path: join(cwd, "AGENTS.md"), content: "app rules" },
    ]);
  });

  it("reads SOUL, IDENTITY, USER and MEMORY from $ARBOR_HOME and the workspace, in their documented order", async () => {
    const { cwd, home } = layout();
    for (const name of ["SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"]) {
      write(join(home, name), `home ${name}`);
      write(join(cwd, name), `workspace ${name}`);
    }
    write(join(cwd, "AGENTS.md"), "workspace AGENTS.md");

    const { instructions } = await loadPromptContext({ cwd, arborHome: home });
    expect(instructions.map((file) => file.content)).toEqual([
      "home SOUL.md",
      "workspace SOUL.md",
      "home IDENTITY.md",
      "workspace IDENTITY.md",
      "home USER.md",
      "workspace USER.md",
      "workspace AGENTS.md",
      "home MEMORY.md",
      "workspace MEMORY.md",
    ]);
  });

  it("reads a file once when the workspace is $ARBOR_HOME", async () => {
    const { cwd } = layout();
    write(join(cwd, "AGENTS.md"), "rules");
    write(join(cwd, "SOUL.md"), "soul");
    const { instructions } = await loadPromptContext({ cwd, arborHome: cwd });
    expect(instructions.map((file) => file.path)).toEqual([join(cwd, "SOUL.md"), join(cwd, "AGENTS.md")]);
  });

  it("skips missing, empty and unreadable files without failing", async () => {
    const { cwd, home } = layout();
    mkdirSync(join(cwd, "SOUL.md")); // a folder, not a file
    symlinkSync("IDENTITY.md", join(cwd, "IDENTITY.md")); // a link to itself: ELOOP
    symlinkSync(join(cwd, "nowhere.md"), join(home, "USER.md")); // dangling
    write(join(cwd, "MEMORY.md"), "  \n\n");
    const locked = write(join(home, "MEMORY.md"), "secret");
    chmodSync(locked, 0o000);
    if (process.platform !== "win32") execFileSync("mkfifo", [join(cwd, "USER.md")]); // would block a plain open
    write(join(cwd, "AGENTS.md"), "the one good file");

    const { instructions } = await loadPromptContext({ cwd, arborHome: home });
    const readable = process.getuid?.() === 0; // root reads a 000 file all the same
    expect(instructions).toEqual([
      { path: join(cwd, "AGENTS.md"), content: "the one good file" },
      ...(readable ? [{ path: locked, content: "secret" }] : []),
    ]);
  });

  it("reads at most MAX_PROMPT_FILE_BYTES of a file and says it was cut", async () => {
    const { cwd, home } = layout();
    // The odd "a" puts the cut inside a two-byte "é", which must be dropped rather than garbled.
    write(join(cwd, "MEMORY.md"), `a${"é".repeat(MAX_PROMPT_FILE_BYTES)}tail`);
    const [memory] = (await loadPromptContext({ cwd, arborHome: home })).instructions;
    expect(memory?.content.startsWith(`a${"é".repeat(MAX_PROMPT_FILE_BYTES / 2 - 1)}\n[`)).toBe(true);
    expect(memory?.content).not.toContain("tail");
    expect(memory?.content).not.toContain("\uFFFD");
    expect(memory?.content).toMatch(/\[Only the first 262144 of 524293 bytes of this file were read\.\]$/);
  });

  it("lists project and user skills, the project's first when both have a name", async () => {
    const { cwd, home } = layout();
    write(join(cwd, ".arbor", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Project deploy\n---\nbody");
    write(join(home, "skills", "deploy", "SKILL.md"), "---\ndescription: User deploy\n---\nbody");
    write(join(home, "skills", "pdf", "SKILL.md"), "---\ndescription: Read PDFs\n---\nbody");

    const { skills } = await loadPromptContext({ cwd, arborHome: home });
    expect(skills).toEqual([
      { name: "deploy", description: "Project deploy" },
      { name: "pdf", description: "Read PDFs" },
    ]);
  });

  it.skipIf(process.platform === "win32")("skips a skill whose SKILL.md is a FIFO instead of waiting on it", async () => {
    const { cwd, home } = layout();
    mkdirSync(join(home, "skills", "stuck"), { recursive: true });
    execFileSync("mkfifo", [join(home, "skills", "stuck", "SKILL.md")]); // a plain read waits for a writer forever
    write(join(home, "skills", "pdf", "SKILL.md"), "---\ndescription: Read PDFs\n---\nbody");

    const { skills } = await loadPromptContext({ cwd, arborHome: home });
    expect(skills).toEqual([{ name: "pdf", description: "Read PDFs" }]);
  });

  it("detects a git repository by a .git folder or file above the workspace, and its absence", async () => {
    const outside = tempDir();
    const cwd = join(outside, "a", "b");
    mkdirSync(cwd, { recursive: true });
    write(join(outside, "a", "AGENTS.md"), "found walking up");
    const none = await loadPromptContext({ cwd, arborHome: join(outside, "home") });
    expect(none.isGitRepo).toBe(false);
    expect(none.skills).toEqual([]);
    // Outside a repository the walk goes on to the root, so only this test's own files are checked.
    expect(none.instructions.filter((file) => file.path.startsWith(outside))).toEqual([
      { path: join(outside, "a", "AGENTS.md"), content: "found walking up" },
    ]);

    write(join(outside, "a", ".git"), "gitdir: /elsewhere/.git/worktrees/b\n"); // a worktree's .git is a file
    expect((await loadPromptContext({ cwd, arborHome: join(outside, "home") })).isGitRepo).toBe(true);
  });

  it("stops at once when the signal is aborted", async () => {
    const { cwd, home } = layout();
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(loadPromptContext({ cwd, arborHome: home, signal: controller.signal })).rejects.toThrow("stop");
  });
});
