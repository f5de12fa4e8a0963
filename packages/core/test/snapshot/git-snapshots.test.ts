import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasGit } from "../../../../test-setup/git.js";
import { openSnapshots } from "../../src/snapshot/git-snapshots.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-snapshots-"));
  await mkdir(join(dir, "ws"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Snapshots of the workspace `ws`, whose .gitignore leaves out `*.log`, and their first snapshot. */
async function ignoringLogs() {
  const ws = join(dir, "ws");
  await writeFile(join(ws, ".gitignore"), "*.log\n");
  const snapshots = await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1" });
  return { ws, snapshots, start: await snapshots.track() };
}

describe.skipIf(!hasGit)("workspace snapshots (git on the PATH)", () => {
  it("lists odd paths, deletions and binary files, and restores every byte", async () => {
    const ws = join(dir, "ws");
    const crlf = "line one\r\nline two\r\n";
    await writeFile(join(ws, "crlf.txt"), crlf);
    await writeFile(join(ws, "gone.txt"), "to be deleted\n");
    const snapshots = await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1" });
    const before = await snapshots.track();

    const odd = 'with space, "quote" and ü.txt';
    const binary = Buffer.from([0, 1, 2, 255, 0, 10]);
    await writeFile(join(ws, odd), "hello\n");
    await mkdir(join(ws, "deep", "er"), { recursive: true });
    await writeFile(join(ws, "deep", "er", "blob.bin"), binary);
    await rm(join(ws, "gone.txt"));
    await writeFile(join(ws, "crlf.txt"), `${crlf}line three\r\n`);
    const after = await snapshots.track();

    const files = await snapshots.patch(before, after);
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ["crlf.txt", "modified"],
      ["deep/er/blob.bin", "added"],
      ["gone.txt", "deleted"],
      [odd, "added"],
    ]);
    expect(files[0]!.diff).toContain("+line three");
    expect(files[1]!.diff).toContain("Binary files");
    expect(files[3]!.diff).toContain("+hello");
    expect(await snapshots.patch(after, after)).toEqual([]);

    await snapshots.restore(after, before);
    expect(await readFile(join(ws, "crlf.txt"), "utf8")).toBe(crlf);
    expect(await readFile(join(ws, "gone.txt"), "utf8")).toBe("to be deleted\n");
    expect(existsSync(join(ws, odd))).toBe(false);
    expect(existsSync(join(ws, "deep"))).toBe(false);

    await snapshots.restore(await snapshots.track(), after);
    expect(await readFile(join(ws, "deep", "er", "blob.bin"))).toEqual(binary);
    expect(existsSync(join(ws, "gone.txt"))).toBe(false);
  });

  it("leaves ignored files out of snapshots and alone on restore", async () => {
    const { ws, snapshots, start: before } = await ignoringLogs();
    await writeFile(join(ws, "run.log"), "ignored\n");
    await writeFile(join(ws, "kept.txt"), "tracked\n");
    const after = await snapshots.track();
    expect((await snapshots.patch(before, after)).map((f) => f.path)).toEqual(["kept.txt"]);
    await snapshots.restore(after, before);
    expect(existsSync(join(ws, "kept.txt"))).toBe(false);
    expect(await readFile(join(ws, "run.log"), "utf8")).toBe("ignored\n");
  });

  it("given the changed files, looks at only those; a later full look finds the rest", async () => {
    const { ws, snapshots, start } = await ignoringLogs();
    await writeFile(join(ws, "named.txt"), "named\n");
    await writeFile(join(ws, "*.txt"), "a star in its name\n");
    await writeFile(join(ws, "unnamed.txt"), "unnamed\n");
    const named = await snapshots.track([join(ws, "named.txt"), "*.txt", join(dir, "outside.txt")]);
    expect((await snapshots.patch(start, named)).map((f) => f.path)).toEqual(["*.txt", "named.txt"]);
    const full = await snapshots.track();
    expect((await snapshots.patch(named, full)).map((f) => f.path)).toEqual(["unnamed.txt"]);
  });

  it("a named file git will not take, or a named .gitignore, gets a full look", async () => {
    const { ws, snapshots, start } = await ignoringLogs();
    await writeFile(join(ws, "run.log"), "ignored\n");
    await writeFile(join(ws, "other.txt"), "other\n");
    const ignored = await snapshots.track([join(ws, "run.log")]);
    expect((await snapshots.patch(start, ignored)).map((f) => f.path)).toEqual(["other.txt"]);
    await writeFile(join(ws, ".gitignore"), "*.log\n*.tmp\n");
    await writeFile(join(ws, "more.txt"), "more\n");
    const rules = await snapshots.track([join(ws, ".gitignore")]);
    expect((await snapshots.patch(ignored, rules)).map((f) => f.path)).toEqual([".gitignore", "more.txt"]);
  });

  it("a workspace that does not exist is a snapshot_failed error", async () => {
    await expect(openSnapshots({ home: join(dir, "home"), workspace: join(dir, "nope"), sessionId: "s1" })).rejects.toMatchObject(
      {
        code: "snapshot_failed",
      },
    );
  });
});
