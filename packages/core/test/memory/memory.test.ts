import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type StepContext, scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { appendMemory, dayName } from "../../src/memory/memory-files.js";
import { loadPromptContext } from "../../src/prompt/instructions.js";
import { fitMemory } from "../../src/prompt/memory-budget.js";
import { parseMemories } from "../../src/runtime/memory-extract.js";
import { memorySearchTool, memoryWriteTool } from "../../src/tools/builtin/memory.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { fakeContext } from "../tools/helpers.js";

const NOW = new Date(2026, 10, 26, 9, 30).getTime();

function tools() {
  const cwd = tempDir();
  const home = tempDir("arbor-home-");
  const registry = new ToolRegistry().register(
    memoryWriteTool({ arborHome: home, now: () => NOW }),
    memorySearchTool({ arborHome: home }),
  );
  const ctx = fakeContext(cwd);
  return { cwd, home, ctx, call: (name: string, input: unknown) => registry.invoke(name, input, ctx) };
}

describe("memory_write and memory_search", () => {
  it("writes to the day's log or MEMORY.md, in the workspace or $ARBOR_HOME, and finds it ranked", async () => {
    const { cwd, home, call, ctx } = tools();
    expect(await call("memory_write", { content: "The staging deploy runs from the release branch." })).toMatchObject({
      isError: false,
    });
    await call("memory_write", { content: "The user prefers tabs over spaces.", target: "long_term" });
    await call("memory_write", { content: "The user lives in Lisbon and deploys on Fridays.", scope: "user" });
    expect(readFileSync(join(cwd, "memory", "2026-11-26.md"), "utf8")).toBe(
      "- [09:30] The staging deploy runs from the release branch.\n",
    );
    expect(readFileSync(join(cwd, "MEMORY.md"), "utf8")).toBe("- The user prefers tabs over spaces.\n");
    expect(readFileSync(join(home, "memory", "2026-11-26.md"), "utf8")).toContain("Lisbon");
    expect(ctx.asks.map((a) => a.permission)).toEqual(["memory_write", "memory_write", "memory_write"]);

    const found = await call("memory_search", { query: "deploy" });
    expect(found.isError).toBe(false);
    const lines = found.output.split("\n").filter((l) => l.startsWith("["));
    expect(lines).toHaveLength(2);
    expect(found.output).toContain("[workspace:memory/2026-11-26.md:1]");
    expect(found.output).toContain("[user:memory/2026-11-26.md:1]");
    expect(found.output).not.toContain("tabs");
    expect((await call("memory_search", { query: "tabs" })).output).toMatch(/^\[workspace:MEMORY\.md:1\]/);
    expect((await call("memory_search", { query: "kubernetes" })).output).toBe('No memory matches "kubernetes".');
  });

  it("keeps every entry whole when many writers append at once", async () => {
    const dir = tempDir();
    const path = join(dir, "memory", "2026-11-26.md");
    const entries = Array.from({ length: 60 }, (_, i) => `- entry ${i} ${"x".repeat(2000)}\n`);
    await Promise.all(entries.map((entry) => appendMemory(path, entry)));
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    expect(lines).toHaveLength(60);
    expect(new Set(lines.map((l) => Number(/^- entry (\d+) x{2000}$/.exec(l)?.[1])))).toEqual(new Set(entries.map((_, i) => i)));
  });
});

describe("memory in the system prompt", () => {
  it("reads MEMORY.md, then the recent daily logs oldest first, within the token budget", async () => {
    const cwd = tempDir();
    const home = tempDir("arbor-home-");
    mkdirSync(join(cwd, "memory"));
    writeFileSync(join(cwd, "AGENTS.md"), "agents");
    writeFileSync(join(cwd, "MEMORY.md"), "long-term");
    writeFileSync(join(cwd, "memory", "2026-11-24.md"), "too old");
    writeFileSync(join(cwd, "memory", "2026-11-25.md"), "yesterday");
    writeFileSync(join(cwd, "memory", "2026-11-26.md"), "today");
    const context = await loadPromptContext({ cwd, arborHome: home, memory: { date: new Date(NOW), days: 2, maxTokens: 100 } });
    expect(context.instructions.map((f) => f.content)).toEqual(["agents", "long-term", "yesterday", "today"]);
  });

  it("cuts the oldest day first, keeping a daily log's latest entries", () => {
    const daily = (path: string) => path.includes("/memory/");
    const files = [
      { path: "/w/MEMORY.md", content: "m".repeat(40) },
      { path: "/w/memory/2026-11-25.md", content: "old".repeat(20) },
      { path: "/w/memory/2026-11-26.md", content: `${"a".repeat(30)}LATEST` },
    ];
    // 20 tokens = 80 characters: MEMORY.md (40) and today (36) fit whole, yesterday gets the 4 left.
    const fitted = fitMemory(files, (f) => daily(f.path), 20);
    expect(fitted.map((f) => f.path)).toEqual(["/w/MEMORY.md", "/w/memory/2026-11-25.md", "/w/memory/2026-11-26.md"]);
    expect(fitted[1]!.content).toBe("[56 earlier characters of this file were left out of the memory budget.]\ndold");
    expect(fitted[2]!.content).toBe(files[2]!.content);
    expect(fitMemory(files, (f) => daily(f.path), 5).map((f) => f.content)).toEqual([
      `${"m".repeat(20)}\n[20 later characters of this file were left out of the memory budget.]`,
    ]);
  });
});

describe("MEMORY_AUTO_EXTRACT", () => {
  it("after a finished run, asks the memory model and appends what it picked to the day's log", async () => {
    const calls: StepContext[] = [];
    const model = scriptedModel([
      [text("Noted, tabs it is.")],
      (call) => {
        calls.push(call);
        return [text("- The user prefers tabs.\n- The project is called Arbor.\nnot a memory line")];
      },
    ]);
    const { runtime, cwd } = await harness({
      model,
      config: resolveConfig([{ source: "test", value: { memory: { autoExtract: true } } }]),
      clock: { now: () => NOW, sleep: async () => {} },
    });
    const { result } = await collect(runtime.runs.run({ prompt: "I prefer tabs, remember that." }));
    expect(result.status).toBe("done");
    expect(JSON.stringify(calls[0])).toContain("I prefer tabs, remember that.");
    expect(readFileSync(join(cwd, "memory", `${dayName(new Date(NOW))}.md`), "utf8")).toBe(
      "- [09:30] (auto) The user prefers tabs.\n- [09:30] (auto) The project is called Arbor.\n",
    );
  });

  it("keeps only the reply's list lines", () => {
    expect(parseMemories("NONE")).toEqual([]);
    expect(parseMemories("Here:\n- one\n-two\n- \n- three")).toEqual(["one", "three"]);
  });
});
