import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasGit } from "../../../../test-setup/git.js";
import { openSnapshots, type WorkspaceSnapshots } from "../../src/snapshot/git-snapshots.js";
import { CountingRunner } from "./counting-runner.js";

/** A TypeScript file of `n` numbered functions, five lines each: function lines for git's hunk headers. */
const source = (n: number) =>
  Array.from({ length: n }, (_, i) => `export function f${i}(x: number) {\n  const y = x * ${i};\n  return y;\n}\n`).join("\n");

let dir: string;
let ws: string;
let runner: CountingRunner;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-named-patch-"));
  ws = join(dir, "ws");
  await mkdir(join(ws, "src"), { recursive: true });
  await writeFile(join(ws, "src", "long.ts"), source(40));
  await writeFile(join(ws, "src", "short.ts"), "one\ntwo\nthree\n");
  await writeFile(join(ws, "src", "empty.ts"), "");
  await writeFile(join(ws, "src", "tool.sh"), "echo hi\n");
  await writeFile(join(ws, "crlf.txt"), "a\r\nb\r\n");
  await writeFile(join(ws, "data.bin"), Buffer.from([1, 0, 2, 10]));
  await writeFile(join(ws, 'say "hi".txt'), "hi\n");
  await writeFile(join(ws, "with space ü.txt"), "grüße\n");
  runner = new CountingRunner();
});
afterEach(async () => {
  await runner.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Takes a step that changed `paths` (workspace-relative), as a run does: a snapshot of the named
 * files, then the step's patch. Returns that patch, git's patch of the same two trees (read through
 * a second handle, which has no patch of its own to give), and how many patches git wrote for the step.
 */
async function step(snapshots: WorkspaceSnapshots, before: string, paths: string[]) {
  /** The patches git wrote: its `diff-tree` processes. */
  const diffs = () => runner.calls.filter((c) => c === "diff-tree").length;
  const started = diffs();
  const after = await snapshots.track(paths);
  const files = await snapshots.patch(before, after);
  const byGit = await (await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "git" })).patch(before, after);
  return { after, files, byGit, gits: diffs() - started };
}

describe.skipIf(!hasGit)("a step's patch written without git", () => {
  for (const withRunner of [true, false]) {
    it(`is the patch git writes: edits, function lines, newlines at the end, modes, deletions (${withRunner ? "in the runner" : "in this process"})`, async () => {
      const snapshots = await openSnapshots({
        home: join(dir, "home"),
        workspace: ws,
        sessionId: "s1",
        ...(withRunner ? { runner } : {}),
      });
      let before = await snapshots.track();
      const steps: Array<[string[], () => Promise<void>]> = [
        // Two hunks far apart, each headed by the function line above it; a line added at the end.
        [
          ["src/long.ts"],
          () =>
            writeFile(
              join(ws, "src", "long.ts"),
              `${source(40).replace("x * 7;", "x * 70;").replace("x * 33;", "x + 33;")}// end\n`,
            ),
        ],
        // The last newline lost, then a file that was empty gets a line.
        [
          ["src/short.ts", "src/empty.ts"],
          async () => {
            await writeFile(join(ws, "src", "short.ts"), "one\ntwo\nthree");
            await writeFile(join(ws, "src", "empty.ts"), "now here\n");
          },
        ],
        // Only the mode; the mode and the content; a path git prints as it is.
        [
          ["src/tool.sh", "src/short.ts", "with space ü.txt"],
          async () => {
            await chmod(join(ws, "src", "tool.sh"), 0o755);
            await chmod(join(ws, "src", "short.ts"), 0o755);
            await writeFile(join(ws, "src", "short.ts"), "one\n2\nthree\n");
            await writeFile(join(ws, "with space ü.txt"), "grüße\nund tschüss\n");
          },
        ],
        // Emptied, deleted, and a file deleted that was empty.
        [
          ["src/long.ts", "src/short.ts", "src/empty.ts"],
          async () => {
            await writeFile(join(ws, "src", "long.ts"), "");
            await rm(join(ws, "src", "short.ts"));
            await writeFile(join(ws, "src", "empty.ts"), "");
          },
        ],
        [["src/empty.ts"], () => rm(join(ws, "src", "empty.ts"))],
      ];
      for (const [paths, edit] of steps) {
        await edit();
        const { after, files, byGit, gits } = await step(snapshots, before, paths);
        expect(files).toEqual(byGit);
        expect(files.length).toBeGreaterThan(0);
        expect(gits).toBe(0);
        before = after;
      }
    });
  }

  it("is left to git for binary files, carriage returns and paths git quotes, and still is git's", async () => {
    const snapshots = await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1", runner });
    let before = await snapshots.track();
    const edits: Array<[string, string | Buffer]> = [
      ["data.bin", Buffer.from([1, 0, 3, 10])],
      ["crlf.txt", "a\r\nc\r\n"],
      ['say "hi".txt', "hello\n"],
    ];
    for (const [path, content] of edits) {
      await writeFile(join(ws, path), content);
      const { after, files, byGit, gits } = await step(snapshots, before, [path]);
      expect(files).toEqual(byGit);
      expect(files.map((f) => f.path)).toEqual([path]);
      expect(gits).toBe(1);
      before = after;
    }
  });

  it("cuts a long diff where git's is cut", async () => {
    const snapshots = await openSnapshots({ home: join(dir, "home"), workspace: ws, sessionId: "s1", runner });
    const before = await snapshots.track();
    await writeFile(join(ws, "src", "long.ts"), source(2000));
    // Written here or, when the diff outlasts its 50 ms budget on a loaded machine, by git: cut alike either way.
    const { files, byGit } = await step(snapshots, before, ["src/long.ts"]);
    expect(files[0]!.diff).toMatch(/… \(diff cut at 20000 characters\)$/);
    expect(files).toEqual(byGit);
  });
});
