import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { hasGit } from "../../../../test-setup/git.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness } from "../loop/harness.js";
import { stepFiles } from "./step-files.js";

/**
 * Writes `stray.txt` behind the runtime's back while saying it changes nothing: a step's snapshot
 * that looks at only the files its tools named leaves it out, one that looks at everything finds it.
 */
const strayTool = defineTool({
  name: "stray",
  description: "Writes stray.txt without saying so.",
  input: z.strictObject({ content: z.string() }),
  effects: "none",
  async execute(input, ctx) {
    writeFileSync(join(ctx.cwd, "stray.txt"), input.content);
    return { output: "ok" };
  },
});

describe.skipIf(!hasGit)("a step's snapshot looks where its tools changed files", () => {
  it("takes a write's change from the path the tool names, and looks everywhere after bash", async () => {
    const model = scriptedModel([
      [
        toolCall("write", { path: "a.txt", content: "written\n" }, { id: "w1" }),
        toolCall("stray", { content: "one\n" }, { id: "s1" }),
      ],
      [toolCall("bash", { command: "echo made-by-bash > b.txt" }, { id: "b1" })],
      [text("done")],
    ]);
    const { runtime, store, cwd } = await harness({
      model,
      snapshots: true,
      extensions: [{ name: "stray", tools: [strayTool] }],
    });
    writeFileSync(join(cwd, "keep.txt"), "kept\n");
    const { result } = await collect(runtime.runs.run({ prompt: "go", cwd }));
    expect(result.status).toBe("done");
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("made-by-bash\n");
    // Step 1 looked only at a.txt (the write named it); bash's step looked at everything, so
    // the stray file is found there along with what the command wrote.
    expect(await stepFiles(store, result.sessionId)).toEqual([["a.txt"], ["b.txt", "stray.txt"]]);

    // Both kinds of step revert and unrevert byte for byte.
    await runtime.sessions.revert(result.sessionId);
    expect(["a.txt", "b.txt", "stray.txt", "keep.txt"].filter((f) => existsSync(join(cwd, f)))).toEqual(["keep.txt"]);
    await runtime.sessions.unrevert(result.sessionId);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("written\n");
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("made-by-bash\n");
    expect(readFileSync(join(cwd, "stray.txt"), "utf8")).toBe("one\n");
  });

  it("a step whose tools all say they change nothing records no patch", async () => {
    const model = scriptedModel([[toolCall("stray", { content: "unseen\n" }, { id: "s1" })], [text("done")]]);
    const { runtime, store, cwd } = await harness({
      model,
      snapshots: true,
      extensions: [{ name: "stray", tools: [strayTool] }],
    });
    const { result } = await collect(runtime.runs.run({ prompt: "go", cwd }));
    expect(result.status).toBe("done");
    expect(readFileSync(join(cwd, "stray.txt"), "utf8")).toBe("unseen\n");
    expect(await stepFiles(store, result.sessionId)).toEqual([]);
  });

  it("a run whose calls all change nothing starts no git; its first call that may change files gets the full look", async () => {
    const model = scriptedModel([
      [toolCall("read", { path: "keep.txt" }, { id: "r1" })],
      [toolCall("read", { path: "keep.txt" }, { id: "r2" })],
      [text("done")],
    ]);
    const { runtime, cwd, home } = await harness({ model, snapshots: true });
    writeFileSync(join(cwd, "keep.txt"), "kept\n");
    const { result } = await collect(runtime.runs.run({ prompt: "go", cwd }));
    expect(result.status).toBe("done");
    // No history was opened: the workspace's snapshot folder was never made.
    expect(existsSync(join(home, "snapshots")) && readdirSync(join(home, "snapshots")).length > 0).toBe(false);

    // A later step's write, after a step of reads, is recorded against the workspace as it was before it.
    const writes = scriptedModel([
      [toolCall("read", { path: "keep.txt" }, { id: "r3" })],
      [toolCall("write", { path: "keep.txt", content: "changed\n" }, { id: "w1" })],
      [text("done")],
    ]);
    const second = await harness({ model: writes, snapshots: true });
    writeFileSync(join(second.cwd, "keep.txt"), "kept\n");
    const run = await collect(second.runtime.runs.run({ prompt: "go", cwd: second.cwd }));
    expect(run.result.status).toBe("done");
    expect(await stepFiles(second.store, run.result.sessionId)).toEqual([["keep.txt"]]);
    await second.runtime.sessions.revert(run.result.sessionId);
    expect(readFileSync(join(second.cwd, "keep.txt"), "utf8")).toBe("kept\n");
  });
});
