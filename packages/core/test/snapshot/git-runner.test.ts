import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { hasGit } from "../../../../test-setup/git.js";
import { GitRunner, runGit } from "../../src/snapshot/git-runner.js";
import { openSnapshots } from "../../src/snapshot/git-snapshots.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { stepFiles } from "./step-files.js";

/** The live git runner processes this process started (Linux: read from /proc). */
function runnerPids(): number[] {
  return readdirSync("/proc").flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== process.pid || state === "Z") return [];
      return readFileSync(`/proc/${name}/cmdline`, "utf8").includes("git-runner-child") ? [Number(name)] : [];
    } catch {
      return []; // exited while listed
    }
  });
}

/** A run per `files` entry, each writing that file in one step and then finishing. */
function writes(files: string[]) {
  return scriptedModel(
    files.flatMap((path, i) => [[toolCall("write", { path, content: `${path}\n` }, { id: `w${i}` })], [text("done")]]),
  );
}

describe.skipIf(!hasGit || process.platform !== "linux")("the runtime's git runner process", () => {
  it("a call in flight when its runner dies is run here, and the next call starts a new runner", async () => {
    const dir = tempDir();
    const ws = join(dir, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "a.txt"), "one\n");
    const runner = new GitRunner();
    try {
      const snapshots = await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1", runner });
      const killed = runner.pid;
      expect(killed).toBeDefined();
      // Killed with the call sent and unanswered: git needs milliseconds, the signal lands at once.
      const tracking = snapshots.track();
      process.kill(killed!, "SIGKILL");
      const tree = await tracking;
      expect(await snapshots.recorded(tree)).toBe(true);

      writeFileSync(join(ws, "b.txt"), "two\n");
      const next = await snapshots.track(["b.txt"]);
      expect((await snapshots.patch(tree, next)).map((f) => f.path)).toEqual(["b.txt"]);
      expect(runner.pid).toBeDefined();
      expect(runner.pid).not.toBe(killed);

      // A write that must not happen twice is not rerun: it fails, saying so. The runner is killed
      // once it has surely taken the call: git runs a command that connects here and waits. (A kill
      // before the runner read the call, as a loaded machine can order it, rightly runs it here, once.)
      const server = createServer();
      const connected = new Promise<Socket>((resolve) => server.once("connection", resolve));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      const hold = `!'${process.execPath}' -e "require('net').connect(${port}, '127.0.0.1').on('close', () => process.exit(0))"`;
      const writing = runGit({ args: ["-c", `alias.hold=${hold}`, "hold"], cwd: ws, env: {}, input: "" }, runner, true);
      const socket = await connected;
      process.kill(runner.pid!, "SIGKILL");
      await expect(writing).rejects.toMatchObject({ code: "snapshot_failed", message: expect.stringContaining("interrupted") });
      socket.destroy();
      server.close();
    } finally {
      await runner.close();
    }
  });

  it("a lost call run here waits for the lock its first git still holds, instead of failing", async () => {
    // The runner died mid-call; the git it started lives on and holds index.lock until it ends (here the
    // lock is made by hand and taken away as that git's end would). The rerun must wait, not fail.
    const repo = join(tempDir(), "repo");
    mkdirSync(repo);
    const env = { PATH: process.env.PATH ?? "" };
    execFileSync("git", ["init", "-q"], { cwd: repo, env });
    writeFileSync(join(repo, "a.txt"), "one\n");
    const lock = join(repo, ".git", "index.lock");
    writeFileSync(lock, "");
    const lostRunner = { run: async () => "lost" } as unknown as GitRunner;
    const ended = setTimeout(() => rmSync(lock), 150);
    try {
      await runGit({ args: ["add", "-A"], cwd: repo, env }, lostRunner);
    } finally {
      clearTimeout(ended);
    }
    expect(execFileSync("git", ["ls-files"], { cwd: repo, env, encoding: "utf8" })).toBe("a.txt\n");
  });

  it("a runner killed between runs costs no snapshot: the next step is recorded and a new runner starts", async () => {
    const { runtime, store, cwd } = await harness({ model: writes(["a.txt", "b.txt", "c.txt"]), snapshots: true });
    const first = await collect(runtime.runs.run({ prompt: "one", cwd }));
    expect(first.result.status).toBe("done");
    const sessionId = first.result.sessionId;
    const [killed, ...others] = runnerPids();
    expect(killed).toBeDefined();
    expect(others).toEqual([]);
    process.kill(killed!, "SIGKILL");

    const second = await collect(runtime.runs.run({ prompt: "two", sessionId, cwd }));
    expect(second.result.status).toBe("done");
    const third = await collect(runtime.runs.run({ prompt: "three", sessionId, cwd }));
    expect(third.result.status).toBe("done");
    expect(await stepFiles(store, sessionId)).toEqual([["a.txt"], ["b.txt"], ["c.txt"]]);
    const now = runnerPids();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(killed);
  });

  it("closing the runtime ends its runner", async () => {
    const { runtime, cwd } = await harness({ model: writes(["a.txt"]), snapshots: true });
    expect((await collect(runtime.runs.run({ prompt: "one", cwd }))).result.status).toBe("done");
    const pids = runnerPids();
    expect(pids).toHaveLength(1);
    await runtime.close();
    expect(runnerPids()).toEqual([]);
    expect(() => process.kill(pids[0]!, 0)).toThrow();
  });
});
