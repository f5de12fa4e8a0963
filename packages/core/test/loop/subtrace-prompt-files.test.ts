import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { type LoadPromptContextOptions, loadPromptContext } from "../../src/prompt/instructions.js";
import { promptFilesOnce } from "../../src/prompt/prompt-files.js";
import { branchModels, collect, harness, tempDir } from "./harness.js";

function systemOf(call: LanguageModelV4CallOptions | undefined): string {
  const first = call?.prompt[0];
  return first?.role === "system" ? String(first.content) : "";
}

/** A workspace with an AGENTS.md, a project skill and a memory file, under a folder with an AGENTS.md of its own. */
function workspace(cwd: string, home: string): void {
  writeFileSync(join(cwd, "AGENTS.md"), "Workspace rule, version 1.");
  writeFileSync(join(cwd, "..", "AGENTS.md"), "Outer rule: be brief.");
  mkdirSync(join(cwd, ".arbor", "skills", "deploy"), { recursive: true });
  writeFileSync(
    join(cwd, ".arbor", "skills", "deploy", "SKILL.md"),
    "---\nname: deploy\ndescription: Ships the app.\n---\nSteps.",
  );
  writeFileSync(join(home, "MEMORY.md"), "Remembered: the user likes tea.");
}

/** `model`, running `before` as each of its calls starts. */
function before(model: LanguageModelV4, first: () => void): LanguageModelV4 {
  const stream = model.doStream.bind(model);
  model.doStream = (options) => {
    first();
    return stream(options);
  };
  return model;
}

describe("a sub-agent batch's prompt files", () => {
  it("are read once per batch: each branch's prompt carries them as the batch's first branch read them", async () => {
    const main = scriptedModel([
      [toolCall("explore", { branches: ["one", "two", "three"] }, { id: "ex1" })],
      [toolCall("explore", { branches: ["four", "five"] }, { id: "ex2" })],
      [text("done")],
    ]);
    const tasks = ["one", "two", "three", "four", "five"];
    const branches = Object.fromEntries(tasks.map((task) => [task, scriptedModel([[text(`${task}: ok`)]])]));
    const { runtime, store, cwd, home } = await harness({ model: branchModels(main, branches) });
    workspace(cwd, home);
    // The first branch changes AGENTS.md as it runs; one branch at a time, so the others start after it.
    before(branches.one!, () => writeFileSync(join(cwd, "AGENTS.md"), "Workspace rule, version 2."));
    const parent = await store.createSession({ cwd, context: { maxConcurrentSubTraces: 1 } });
    const { result } = await collect(runtime.runs.run({ sessionId: parent.id, prompt: "main: look around" }));
    expect(result.status).toBe("done");

    const prompts = tasks.map((task) => systemOf(branches[task]!.calls[0]));
    for (const prompt of prompts) {
      expect(prompt).toContain("Outer rule: be brief.");
      expect(prompt).toContain("deploy: Ships the app.");
      expect(prompt).toContain("Remembered: the user likes tea.");
    }
    // Branches two and three did not read the file again; the next batch did.
    expect(prompts.slice(0, 3).every((p) => p.includes("version 1."))).toBe(true);
    expect(prompts.slice(3).every((p) => p.includes("version 2."))).toBe(true);
    expect(new Set(prompts.slice(0, 3)).size).toBe(1);
    expect(prompts[3]).toBe(prompts[0]!.replace("version 1.", "version 2."));
  });

  it("hands each caller what a read of its own would give, reading each workspace and day once", async () => {
    const root = tempDir();
    const cwd = join(root, "repo", "work");
    const other = join(root, "repo", "other");
    const home = join(root, "home");
    for (const dir of [cwd, other, home]) mkdirSync(dir, { recursive: true });
    workspace(cwd, home);
    const memory = { date: new Date(2026, 11, 5, 21), days: 2, maxTokens: 4000 };
    const own = await loadPromptContext({ cwd, arborHome: home, memory });
    const ownOther = await loadPromptContext({ cwd: other, arborHome: home, memory });

    const reads: LoadPromptContextOptions[] = [];
    const files = promptFilesOnce((options) => {
      reads.push(options);
      return loadPromptContext(options);
    });
    const got = await Promise.all([
      files.load({ cwd, arborHome: home, memory }),
      files.load({
        cwd,
        arborHome: home,
        memory: { ...memory, date: new Date(2026, 11, 5, 22) },
        signal: AbortSignal.timeout(60_000),
      }),
      files.load({ cwd: other, arborHome: home, memory }),
    ]);
    expect(got).toEqual([own, own, ownOther]);
    expect(reads).toHaveLength(2);
    // Another day reads anew: its daily logs are other files.
    await files.load({ cwd, arborHome: home, memory: { ...memory, date: new Date(2026, 11, 6, 9) } });
    expect(reads).toHaveLength(3);
  });

  it("fails only the caller whose signal is aborted", async () => {
    const root = tempDir();
    let count = 0;
    const files = promptFilesOnce((options) => {
      count++;
      return loadPromptContext(options);
    });
    const stop = new AbortController();
    const aborted = files.load({ cwd: root, arborHome: root, signal: stop.signal });
    stop.abort();
    const sibling = files.load({ cwd: root, arborHome: root });
    await expect(aborted).rejects.toThrow();
    await expect(sibling).resolves.toMatchObject({ instructions: [] });
    expect(count).toBe(1);
  });
});
