import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { noSandbox } from "../../src/sandbox/none.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { SandboxSettingsSchema } from "../../src/sandbox/settings.js";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { editTool } from "../../src/tools/builtin/edit.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { CommandRequest, CommandRunner, WorkspaceFiles } from "../../src/tools/workspace.js";
import { fakeContext, tempDir } from "./helpers.js";

/** A host holding files in memory and running no command: it answers each with `said`. */
function host(said = "host output\n") {
  const files = new Map<string, string>();
  const commands: CommandRequest[] = [];
  const fs: WorkspaceFiles = {
    async readText(path) {
      const text = files.get(path);
      if (text === undefined) throw new Error(`no buffer for ${path}`);
      return text;
    },
    async writeText(path, content) {
      files.set(path, content);
    },
  };
  const runner: CommandRunner = {
    async run(request) {
      commands.push(request);
      request.started?.({ terminalId: "t1" });
      return { output: said, truncated: false, exitCode: 0, signal: null, timedOut: false, aborted: false };
    },
  };
  return { files, commands, workspace: { files: fs, commands: runner } };
}

function setup(sandbox?: Sandbox) {
  const cwd = tempDir();
  const h = host();
  const ctx = { ...fakeContext(cwd), workspace: h.workspace };
  const registry = new ToolRegistry().register(
    readTool(),
    writeTool(),
    editTool(),
    bashTool(sandbox === undefined ? {} : { sandbox }),
  );
  return { cwd, ctx, host: h, run: (tool: string, input: unknown) => registry.invoke(tool, input, ctx) };
}

describe("tools over a host's workspace (ToolContext.workspace)", () => {
  it("read, write and edit use the host's files, asking the same permissions, and leave the disk alone", async () => {
    const { cwd, ctx, host, run } = setup();
    writeFileSync(join(cwd, "a.txt"), "on disk\n");
    host.files.set(join(cwd, "a.txt"), "in the host\nsecond\n");
    expect((await run("read", { path: "a.txt", offset: 2 })).output).toBe("     2\tsecond\n\n(End of file: 2 lines.)");
    expect(await run("edit", { path: "a.txt", oldString: "second", newString: "2nd" })).toMatchObject({ isError: false });
    expect(await run("write", { path: "b/new.txt", content: "new\n" })).toMatchObject({ isError: false });
    expect(host.files.get(join(cwd, "a.txt"))).toBe("in the host\n2nd\n");
    expect(host.files.get(join(cwd, "b", "new.txt"))).toBe("new\n");
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("on disk\n");
    expect(existsSync(join(cwd, "b"))).toBe(false);
    expect(ctx.asks.map((a) => a.permission)).toEqual(["read", "edit", "edit"]);
    const missing = await run("read", { path: "nope.txt" });
    expect(missing).toMatchObject({ isError: true, code: "tool_failed" });
    expect(missing.output).toContain("The editor could not read nope.txt: no buffer for");
  });

  it("a file outside the workspace still asks external_directory before the host is asked", async () => {
    const { ctx, host, run } = setup();
    const outside = join(tempDir(), "x.txt");
    host.files.set(outside, "secret\n");
    const rejecting = { ...fakeContext(ctx.cwd, { answer: () => "reject" }), workspace: ctx.workspace };
    const registry = new ToolRegistry().register(readTool());
    const out = await registry.invoke("read", { path: outside }, rejecting);
    expect(out).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(rejecting.asks.map((a) => a.permission)).toEqual(["external_directory"]);
    expect(await run("read", { path: outside })).toMatchObject({ isError: false });
  });

  it("bash runs on the host when nothing would confine it here, reporting where it runs", async () => {
    const { cwd, ctx, host, run } = setup(
      new Sandbox({ arborHome: tempDir(), settings: SandboxSettingsSchema.parse({ mode: "off" }) }),
    );
    const out = await run("bash", { command: "touch here", description: "touch" });
    expect(out).toMatchObject({ isError: false, metadata: { exitCode: 0, sandboxed: false } });
    expect(out.output).toBe("host output\n\n[exit code: 0]");
    expect(host.commands).toEqual([expect.objectContaining({ command: "touch here", shell: "bash", cwd, timeoutMs: 120_000 })]);
    expect(ctx.progress).toContainEqual({ title: "touch", metadata: { terminalId: "t1" } });
    expect(existsSync(join(cwd, "here"))).toBe(false);
  });

  it("bash runs here, confined, when the sandbox would confine it: the host's terminal is not", async () => {
    const { cwd, host, run } = setup(new Sandbox({ arborHome: tempDir(), backend: noSandbox }));
    const out = await run("bash", { command: "touch here && echo local" });
    expect(out.output).toBe("local\n\n[exit code: 0]");
    expect(host.commands).toEqual([]);
    expect(existsSync(join(cwd, "here"))).toBe(true);
  });
});
