import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

/** Alive means running: a zombie (exited, not yet reaped by whoever adopted it) counts as gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  const state = readFileSync(stat, "utf8").split(") ")[1]?.[0];
  return state !== "Z" && state !== "X";
}

/**
 * The tool returns once every pipe of the group has closed. A process closes its files a little before the
 * kernel marks it exited (do_exit closes files, then notifies its parent), so on a loaded machine the test
 * can look in between: the grandchild is then dying, not running. Wait for that short window, bounded.
 */
async function expectGone(pid: number): Promise<void> {
  await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 2000, interval: 5 });
}

function setup(options: Parameters<typeof bashTool>[0] = {}) {
  const cwd = tempDir();
  const ctx = fakeContext(cwd);
  const blobs = new MemoryBlobStore();
  const registry = new ToolRegistry({ blobs }).register(bashTool({ killGraceMs: 500, ...options }), readTool({ blobs }));
  return { cwd, ctx, blobs, run: (input: unknown, c = ctx) => registry.invoke("bash", input, c), registry };
}

describe("bash", () => {
  it("runs in the workspace and reports output and exit code", async () => {
    const { cwd, ctx, run } = setup();
    const out = await run({ command: "pwd; echo oops >&2; exit 3", description: "print folder" });
    expect(out).toMatchObject({ isError: false, title: "print folder", metadata: { exitCode: 3, timedOut: false } });
    expect(out.output).toBe(`${cwd}\noops\n\n[exit code: 3]`);
    expect(ctx.asks).toEqual([
      {
        permission: "bash",
        patterns: ["pwd", "echo oops >&2", "exit 3"],
        metadata: { command: "pwd; echo oops >&2; exit 3" },
      },
    ]);
  });

  it("says when there was no output, and runs in a workdir", async () => {
    const { cwd, run } = setup();
    mkdirSync(join(cwd, "sub"));
    expect((await run({ command: "true" })).output).toBe("(no output)\n\n[exit code: 0]");
    expect((await run({ command: "basename $(pwd)", workdir: "sub" })).output).toBe("sub\n\n[exit code: 0]");
    expect((await run({ command: "true", workdir: "missing" })).output).toBe("workdir missing is not a folder.");
  });

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const { run } = setup();
    const out = await run({ command: "sleep 30 & echo child $!; wait", timeout: 300 });
    expect(out.isError).toBe(false);
    expect(out.output).toMatch(/^child \d+\n\n\[Command timed out after 300 ms; its process group was killed\.\]$/);
    const pid = Number(/child (\d+)/.exec(out.output)![1]);
    await expectGone(pid);
  });

  it("escalates to SIGKILL when the group ignores SIGTERM", async () => {
    const { run } = setup({ killGraceMs: 100 });
    const out = await run({ command: "trap '' TERM; sleep 30 & echo child $!; wait", timeout: 200 });
    expect(out.output).toContain("timed out after 200 ms");
    const pid = Number(/child (\d+)/.exec(out.output)![1]);
    await expectGone(pid);
  });

  it("abort kills the process group and reports the call as aborted with the output so far", async () => {
    const { ctx, run } = setup();
    let pid = 0;
    // Abort as soon as the grandchild has announced itself: no sleeps, no races.
    ctx.metadata = (update) => {
      const match = /child (\d+)/.exec(String(update.live?.output));
      if (match && pid === 0) {
        pid = Number(match[1]);
        ctx.controller.abort();
      }
    };
    const out = await run({ command: "sleep 30 & echo child $!; wait; echo never" });
    expect(out).toMatchObject({ isError: true, code: "aborted" });
    expect(out.output).toBe(`child ${pid}\n\n[Command aborted; its process group was killed.]`);
    expect(pid).toBeGreaterThan(0);
    await expectGone(pid);
  });

  it("does not start when already aborted", async () => {
    const { ctx, cwd, run } = setup();
    ctx.controller.abort();
    const out = await run({ command: "touch started" });
    expect(out).toMatchObject({ isError: true, code: "aborted" });
    expect(existsSync(join(cwd, "started"))).toBe(false);
  });

  it("cuts a flood of output to its tail, keeps the exit status visible and the whole for read", async () => {
    const blobs = new MemoryBlobStore();
    const cwd = tempDir();
    const ctx = fakeContext(cwd);
    const registry = new ToolRegistry({ blobs }).register(bashTool({ blobs }), readTool({ blobs }));
    const out = await registry.invoke("bash", { command: "seq 1 3000" }, ctx);
    const ref = out.truncated?.fullOutputRef;
    expect(ref).toBeDefined();
    expect(out.output).toMatch(/^\[Output truncated: showing the last 2000 of 3000 lines/);
    expect(out.output).toContain(`path "blob:${ref}" and offset 1 (limit 1000 covers them)`);
    expect(out.output).toMatch(/\n\n1001\n1002\n[\s\S]*\n3000\n\n\[exit code: 0\]$/);
    const first = await registry.invoke("read", { path: `blob:${ref}`, limit: 2 }, ctx);
    expect(first.output).toBe("     1\t1\n     2\t2\n\n(More lines follow. Call read with offset 3 to continue.)");
  });

  it("without its own store, leaves the cut to the registry", async () => {
    const { run } = setup();
    const out = await run({ command: "seq 1 3000" });
    expect(out.truncated?.fullOutputRef).toBeDefined();
    expect(out.output).toMatch(/^1\n2\n/);
    expect(out.output).toContain("[Output truncated: showed the first 2000 of 3002 lines");
  });

  it("bounds the output kept in memory", async () => {
    const { run } = setup({ maxBufferBytes: 100 });
    const out = await run({ command: "head -c 1000 /dev/zero | tr '\\0' a" });
    expect(out.output).toBe(`${"a".repeat(100)}\n\n[900 more bytes of output were dropped.]\n\n[exit code: 0]`);
  });

  it("rejects bad arguments", async () => {
    const { run } = setup({ maxTimeoutMs: 1000 });
    expect((await run({ command: "true", timeout: 5000 })).output).toBe("timeout 5000 ms is over the limit of 1000 ms.");
    expect((await run({ cmd: "ls" })).output).toMatch(/- command: .*expected string/);
    expect((await run({ command: "ls", timeout: -1 })).output).toMatch(/- timeout: /);
  });
});
