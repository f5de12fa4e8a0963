import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Entry, Snapshot } from "@arbor/core";
import { type Script, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { hasGit, git as runGit } from "../../../test-setup/git.js";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";
import { runArborInProcess } from "./helpers/in-process.js";
import { snapshotOf } from "./helpers/session.js";

/**
 * End to end: `arbor run` against the fake OpenAI server edits files with the write and edit
 * tools; `arbor revert` and `arbor unrevert` then put the workspace back and forth, checked byte
 * for byte over every file (ignored ones included) each time.
 */

const e2e = setupCliE2e("arbor-revert-e2e-", { workspace: false });

/** Every file under `root` (the user's .git excluded) with its bytes, by relative path. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".git") await walk(full);
      } else out[relative(root, full)] = (await readFile(full)).toString("base64");
    }
  };
  await walk(root);
  return out;
}

async function workspace(name: string): Promise<{ home: string; ws: string }> {
  const home = join(e2e.dir, name, "home");
  const ws = join(e2e.dir, name, "ws");
  await mkdir(join(ws, "src"), { recursive: true });
  await writeFile(join(ws, "src", "app.ts"), "export const answer = 41;\n");
  await writeFile(join(ws, "README.md"), "# demo\n");
  await writeFile(join(ws, ".gitignore"), "build/\n*.log\n");
  await mkdir(join(ws, "build"));
  await writeFile(join(ws, "build", "out.js"), "compiled v1\n");
  return { home, ws };
}

async function run(home: string, ws: string, script: Script, prompt: string, session?: string): Promise<string> {
  const baseURL = await e2e.fake(script);
  const args = ["run", "--json", "--model", FAKE_MODEL, "--base-url", baseURL, "--cwd", ws];
  const r = await runArborInProcess([...args, ...(session ? ["--session", session] : []), prompt], { home });
  expect(r.code, r.stderr).toBe(0);
  const first = JSON.parse(r.stdout.split("\n")[0]!) as { session_id: string };
  return first.session_id;
}

const patches = (s: Snapshot) =>
  s.entries.filter((e): e is Extract<Entry, { type: "custom" }> => e.type === "custom" && e.customType === "arbor.patch");

const EDIT_TURN: Script = [
  [
    text("Fixing the answer and adding a note."),
    toolCall("edit", { path: "src/app.ts", oldString: "41", newString: "42" }),
    toolCall("write", { path: "docs/NOTE.md", content: "the answer is 42\n" }),
  ],
  [text("Done.")],
];

const SECOND_TURN: Script = [
  [text("Rewriting the readme."), toolCall("write", { path: "README.md", content: "# demo, rewritten\n" })],
  [text("Done again.")],
];

describe.skipIf(!hasGit)("arbor revert / unrevert (git on the PATH)", () => {
  it("a scripted coding run is reverted and unreverted byte for byte, ignored files untouched, in a non-git directory", async () => {
    const { home, ws } = await workspace("plain");
    const original = await tree(ws);
    const id = await run(home, ws, EDIT_TURN, "Fix the answer.");
    const edited = await tree(ws);
    expect(Buffer.from(edited["src/app.ts"]!, "base64").toString()).toBe("export const answer = 42;\n");
    expect(edited["docs/NOTE.md"]).toBeDefined();

    const s = await snapshotOf(home, id);
    const [patch] = patches(s);
    if (!patch) throw new Error("the run recorded no patch");
    expect(patch.data).toMatchObject({
      files: [
        { path: "docs/NOTE.md", status: "added" },
        { path: "src/app.ts", status: "modified" },
      ],
    });
    const files = (patch.data as { files: { path: string; diff: string }[] }).files;
    expect(files[1]!.diff).toContain("-export const answer = 41;");
    expect(files[1]!.diff).toContain("+export const answer = 42;");

    // `arbor sessions diff`: the session's changes as one diff, and --stat just the files.
    const diff = await runArborInProcess(["sessions", "diff", id.slice(0, 8)], { home });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(`Session ${id}: 2 files changed in 1 step in `);
    expect(diff.stdout).toContain("A docs/NOTE.md\nM src/app.ts\n");
    expect(diff.stdout).toContain("+export const answer = 42;");
    const stat = await runArborInProcess(["sessions", "diff", id, "--stat", "--json"], { home });
    expect(JSON.parse(stat.stdout)).toMatchObject({
      sessionId: id,
      steps: 1,
      files: [{ path: "docs/NOTE.md" }, { path: "src/app.ts" }],
    });
    expect((await runArborInProcess(["sessions", "diff", "nosuchsession"], { home })).code).not.toBe(0);

    // The user changes an ignored file meanwhile: revert must leave it alone.
    await writeFile(join(ws, "build", "out.js"), "compiled v2\n");
    await writeFile(join(ws, "debug.log"), "log line\n");
    const withIgnored = await tree(ws);

    const r = await runArborInProcess(["revert", id, "--json"], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessionId: id, files: 2 });
    expect(await tree(ws)).toEqual({
      ...original,
      "build/out.js": withIgnored["build/out.js"],
      "debug.log": withIgnored["debug.log"],
    });
    // The leaf is before the user's message: the session's path holds no message any more.
    const reverted = await snapshotOf(home, id);
    const onPath = reverted.entries.filter((e) => reverted.activePath.includes(e.id));
    expect(onPath.filter((e) => e.type === "message")).toHaveLength(0);

    const u = await runArborInProcess(["unrevert", id], { home });
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toContain("2 files restored");
    expect(await tree(ws)).toEqual(withIgnored);
    const back = await snapshotOf(home, id);
    expect(back.session.leafEntryId).toBe(s.session.leafEntryId);
  }, 120_000);

  it("--to takes back only the turns from that entry on, and unrevert brings the later turn back", async () => {
    const { home, ws } = await workspace("to");
    const id = await run(home, ws, EDIT_TURN, "Fix the answer.");
    const afterFirst = await tree(ws);
    await run(home, ws, SECOND_TURN, "Rewrite the readme.", id);
    const afterSecond = await tree(ws);
    expect(afterSecond).not.toEqual(afterFirst);

    const s = await snapshotOf(home, id);
    const users = s.entries.filter((e) => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(2);
    const r = await runArborInProcess(["revert", id, "--to", users[1]!.id], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(await tree(ws)).toEqual(afterFirst);

    expect((await runArborInProcess(["unrevert", id], { home })).code).toBe(0);
    expect(await tree(ws)).toEqual(afterSecond);
  });

  it("a revert to an unknown entry is a clear error and changes nothing; unrevert with no revert too", async () => {
    const { home, ws } = await workspace("bad");
    const id = await run(home, ws, EDIT_TURN, "Fix the answer.");
    const before = await tree(ws);
    const s = await snapshotOf(home, id);

    const r = await runArborInProcess(["revert", id, "--to", "no-such-entry"], { home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`No entry of session ${id} has the id or id prefix no-such-entry`);
    expect(await tree(ws)).toEqual(before);
    expect(await snapshotOf(home, id)).toEqual(s);

    const u = await runArborInProcess(["unrevert", id], { home });
    expect(u.code).not.toBe(0);
    expect(u.stderr).toContain("no revert to undo");
    expect(await tree(ws)).toEqual(before);
    expect(await snapshotOf(home, id)).toEqual(s);
  });

  it("never touches the user's own git repository", async () => {
    const { home, ws } = await workspace("repo");
    const git = (...args: string[]) => runGit(ws, ...args);
    git("init", "--quiet");
    git("add", "-A");
    git("commit", "--quiet", "-m", "start");
    const head = git("rev-parse", "HEAD");
    const status = git("status", "--porcelain");
    const original = await tree(ws);
    const id = await run(home, ws, EDIT_TURN, "Fix the answer.");
    expect(git("status", "--porcelain")).not.toBe(status);
    expect((await runArborInProcess(["revert", id], { home })).code).toBe(0);
    expect(await tree(ws)).toEqual(original);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("status", "--porcelain")).toBe(status);
    expect(git("stash", "list")).toBe("");
  });

  it("--file puts back one file, --step takes back one step's change; unrevert works after a later turn", async () => {
    const { home, ws } = await workspace("scoped");
    const id = await run(home, ws, EDIT_TURN, "Fix the answer.");
    await run(home, ws, SECOND_TURN, "Rewrite the readme.", id);
    const afterSecond = await tree(ws);
    const s = await snapshotOf(home, id);
    const users = s.entries.filter((e) => e.type === "message" && e.message.role === "user");

    const f = await runArborInProcess(["revert", id, "--file", "src/app.ts", "--to", users[0]!.id, "--json"], { home });
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout)).toMatchObject({ files: 1, scope: "file" });
    expect(await readFile(join(ws, "src", "app.ts"), "utf8")).toBe("export const answer = 41;\n");
    expect(await readFile(join(ws, "README.md"), "utf8")).toBe("# demo, rewritten\n");
    expect((await runArborInProcess(["unrevert", id], { home })).code).toBe(0);
    expect(await tree(ws)).toEqual(afterSecond);

    // The first turn's step only: its two files go back, the second turn's readme stays.
    const step = patches(s)[0]!.id;
    const r = await runArborInProcess(["revert", id, "--step", step], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("the conversation stays where it is");
    expect(await readFile(join(ws, "src", "app.ts"), "utf8")).toBe("export const answer = 41;\n");
    expect(await readdir(ws)).not.toContain("docs");
    expect(await readFile(join(ws, "README.md"), "utf8")).toBe("# demo, rewritten\n");
    // A later turn, then the unrevert: the step's change is back and the new turn's file stays.
    await run(home, ws, [[toolCall("write", { path: "LATER.md", content: "later\n" })], [text("Later.")]], "Later.", id);
    const u = await runArborInProcess(["unrevert", id], { home });
    expect(u.code, u.stderr).toBe(0);
    expect(await readFile(join(ws, "src", "app.ts"), "utf8")).toBe("export const answer = 42;\n");
    expect(await readFile(join(ws, "LATER.md"), "utf8")).toBe("later\n");

    const out = await runArborInProcess(["revert", id, "--file", "../escape.txt"], { home });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("not a file inside the session's workspace");
    // Five CLI commands and three scripted runs: slow on a loaded machine, like the first test here.
  }, 120_000);
});
