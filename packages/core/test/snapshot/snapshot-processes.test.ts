import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasGit } from "../../../../test-setup/git.js";
import { openSnapshots } from "../../src/snapshot/git-snapshots.js";
import { CountingRunner } from "./counting-runner.js";

let dir: string;
let ws: string;
let runner: CountingRunner;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-named-tree-"));
  ws = join(dir, "ws");
  await mkdir(join(ws, "src", "deep"), { recursive: true });
  await writeFile(join(ws, "top.txt"), "top\n");
  await writeFile(join(ws, "src", "a.ts"), "a\n");
  await writeFile(join(ws, "src", "b.ts"), "b\n");
  await writeFile(join(ws, "src", "deep", "c.ts"), "c\n");
  runner = new CountingRunner();
});
afterEach(async () => {
  await runner.close();
  await rm(dir, { recursive: true, force: true });
});

const open = () => openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1", runner });

describe.skipIf(!hasGit)("a snapshot of named files the last tree holds", () => {
  it("is written without git and is the tree a full look records", async () => {
    const snapshots = await open();
    const start = await snapshots.track();
    // The first named snapshot asks git once whether trees may be built here.
    await writeFile(join(ws, "top.txt"), "top 2\n");
    const first = await snapshots.track(["top.txt"]);
    runner.calls = [];

    await writeFile(join(ws, "src", "a.ts"), "a changed\n");
    await chmod(join(ws, "src", "b.ts"), 0o755);
    await rm(join(ws, "src", "deep", "c.ts"));
    const named = await snapshots.track([join(ws, "src", "a.ts"), "src/b.ts", "src/deep/c.ts"]);
    expect(runner.calls).toEqual([]);

    expect((await snapshots.patch(first, named)).map((f) => [f.path, f.status])).toEqual([
      ["src/a.ts", "modified"],
      ["src/b.ts", "modified"],
      ["src/deep/c.ts", "deleted"],
    ]);
    expect(await snapshots.recorded(named)).toBe(true);
    // git, looking at everything, finds the same tree: same bytes, same modes, the emptied folder gone.
    expect(await snapshots.track()).toBe(named);
    // And git finds every object written here well formed.
    const [history] = await readdir(join(dir, "home", "snapshots"));
    execFileSync("git", ["fsck", "--strict", "--no-dangling"], {
      env: { ...process.env, GIT_DIR: join(dir, "home", "snapshots", history!) },
      stdio: "pipe",
    });
    await snapshots.restore(named, start);
    expect(await snapshots.track()).toBe(start);
  });

  it("a later git add of named files keeps what was recorded without git", async () => {
    const snapshots = await open();
    await snapshots.track();
    await writeFile(join(ws, "src", "a.ts"), "a changed\n");
    const named = await snapshots.track(["src/a.ts"]);
    // A new file is git's to judge (it may be ignored): its `git add` must not bring back the old a.ts.
    await writeFile(join(ws, "new.ts"), "new\n");
    const added = await snapshots.track(["new.ts"]);
    expect(runner.calls).toContain("add");
    expect((await snapshots.patch(named, added)).map((f) => f.path)).toEqual(["new.ts"]);
    expect(await snapshots.track()).toBe(added);
  });

  it("leaves to git what only git can judge: attributes, symlinks, a file turned folder", async () => {
    const snapshots = await open();
    await writeFile(join(ws, "src", ".gitattributes"), "*.ts text eol=lf\n");
    await snapshots.track();
    runner.calls = [];
    // git turns CRLF into LF on the way in, as the attributes say: the file's own bytes would be wrong.
    await writeFile(join(ws, "src", "a.ts"), "one\r\ntwo\r\n");
    const filtered = await snapshots.track(["src/a.ts"]);
    expect(runner.calls).toContain("add");
    expect(await snapshots.track()).toBe(filtered);

    await rm(join(ws, "top.txt"));
    await symlink("src/b.ts", join(ws, "top.txt"));
    const linked = await snapshots.track(["top.txt"]);
    expect(await snapshots.track()).toBe(linked);

    await rm(join(ws, "src", "deep", "c.ts"));
    await mkdir(join(ws, "src", "deep", "c.ts"));
    await writeFile(join(ws, "src", "deep", "c.ts", "inner.ts"), "inner\n");
    const folder = await snapshots.track(["src/deep/c.ts/inner.ts", "src/deep/c.ts"]);
    expect(await snapshots.track()).toBe(folder);
    expect((await snapshots.patch(linked, folder)).map((f) => [f.path, f.status])).toEqual([
      ["src/deep/c.ts", "deleted"],
      ["src/deep/c.ts/inner.ts", "added"],
    ]);
  });
});

describe.skipIf(!hasGit)("a full look", () => {
  it("that finds nothing changed starts one git process and returns the last tree", async () => {
    const snapshots = await open();
    const start = await snapshots.track();
    runner.calls = [];
    expect(await snapshots.track()).toBe(start);
    expect(runner.calls).toEqual(["add"]);

    runner.calls = [];
    await writeFile(join(ws, "src", "a.ts"), "a changed\n");
    const changed = await snapshots.track();
    expect(runner.calls).toEqual(["add", "write-tree"]);
    expect((await snapshots.patch(start, changed)).map((f) => f.path)).toEqual(["src/a.ts"]);

    // Only a chmod: git add names the file, and the tree records the new mode.
    await chmod(join(ws, "top.txt"), 0o755);
    const mode = await snapshots.track();
    expect((await snapshots.patch(changed, mode)).map((f) => f.path)).toEqual(["top.txt"]);
  });
});

describe.skipIf(!hasGit)("without a runner", () => {
  it("named files the last tree holds are built in this process, into the tree git records", async () => {
    const snapshots = await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1" });
    const start = await snapshots.track();
    await writeFile(join(ws, "src", "deep", "c.ts"), "c changed\n");
    await rm(join(ws, "top.txt"));
    const named = await snapshots.track(["src/deep/c.ts", "top.txt"]);
    expect((await snapshots.patch(start, named)).map((f) => [f.path, f.status])).toEqual([
      ["src/deep/c.ts", "modified"],
      ["top.txt", "deleted"],
    ]);
    expect(await snapshots.track()).toBe(named);
  });
});
