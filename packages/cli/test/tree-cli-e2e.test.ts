import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Entry, RunEvent, Snapshot } from "@arbor/core";
import { text, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { CliResult } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { withStore } from "./helpers/seed.js";
import { snapshotOf } from "./helpers/session.js";

/**
 * The session tree from the command line, end to end over the fake OpenAI server: continuing from
 * any entry, switching branch, forking, labelling, comparing, and ids shortened like git's.
 */

const e2e = setupCliE2e("arbor-tree-cli-");

const answer = (words: string) => [text(words), usage({ inputTokens: 50, outputTokens: 5 })];

const fake = (...answers: string[]) => e2e.fake(answers.map(answer));

const runArgs = e2e.runArgs;

function done(r: CliResult): Extract<RunEvent, { type: "done" }> & Record<string, unknown> {
  expect(r.code, r.stderr).toBe(0);
  const last = JSON.parse(r.stdout.trimEnd().split("\n").at(-1) as string);
  expect(last.type).toBe("done");
  return last;
}

const userTexts = (s: Snapshot) =>
  s.entries.flatMap((e: Entry) =>
    e.type === "message" && e.message.role === "user"
      ? e.message.content.flatMap((p) => (p.type === "text" ? [p.text] : []))
      : [],
  );

describe("the tree from the CLI", () => {
  it("continues from any entry, switches branch, labels, compares and forks, with short ids", async () => {
    const baseURL = await fake("Paris.", "Lyon.", "Marseille.");
    const first = done(await e2e.cli(runArgs(baseURL, "Name a French city")));
    const session = first.session_id;
    const short = session.slice(0, 6);
    done(await e2e.cli(runArgs(baseURL, "--session", short, "Another one")));
    let snap = await snapshotOf(e2e.home, session);
    const byId = new Map(snap.entries.map((e) => [e.id, e]));
    const path = snap.activePath.map((id) => byId.get(id) as Entry);
    const firstAnswer = path.find((e) => e.type === "message" && e.message.role === "assistant") as Entry;
    const mainLeaf = snap.session.leafEntryId as string;

    // --from an assistant entry: the new prompt follows it on a branch of its own.
    done(await e2e.cli(runArgs(baseURL, "--session", short, "--from", firstAnswer.id.slice(0, 7), "A third, please")));
    snap = await snapshotOf(e2e.home, session);
    const third = snap.entries.find((e) => userTexts({ ...snap, entries: [e] }).includes("A third, please")) as Entry;
    expect(third.parentId).toBe(firstAnswer.id);
    expect(snap.childrenByParentId[firstAnswer.id]).toHaveLength(2);
    const branchLeaf = snap.session.leafEntryId as string;

    const label = await e2e.cli(["sessions", "label", short, firstAnswer.id.slice(0, 8), "the capital"]);
    expect(label.code, label.stderr).toBe(0);
    expect(label.stdout).toContain(`Labelled entry ${firstAnswer.id} "the capital"`);
    expect((await snapshotOf(e2e.home, session)).labelsByEntryId[firstAnswer.id]).toBe("the capital");

    const compare = await e2e.cli([
      "sessions",
      "compare",
      `${short}:${mainLeaf.slice(0, 8)}`,
      `${short}:${branchLeaf}`,
      "--json",
    ]);
    expect(compare.code, compare.stderr).toBe(0);
    const cmp = JSON.parse(compare.stdout);
    expect(cmp.partedAt).toBe(firstAnswer.id);
    expect(cmp.a).toMatchObject({ messages: 2, lastAnswer: "Lyon." });
    expect(cmp.b).toMatchObject({ messages: 2, lastAnswer: "Marseille." });
    const human = await e2e.cli(["sessions", "compare", `${short}:${mainLeaf}`, `${short}:${branchLeaf}`]);
    expect(human.stdout).toContain(`part after ${firstAnswer.id.slice(0, 8)}`);
    expect(human.stdout).toContain("last answer: Lyon.");
    // The label was written at the session's leaf, on B: bookkeeping, not B's work.
    const withLabel = await e2e.cli(["sessions", "compare", `${short}:${mainLeaf}`, short]);
    expect(withLabel.code, withLabel.stderr).toBe(0);
    expect(withLabel.stdout).toMatch(/^B \S+: 2 entries of its own \(2 messages/m);
    expect(withLabel.stdout).not.toContain("the capital");

    const leaf = await e2e.cli(["sessions", "leaf", short, mainLeaf.slice(0, 8), "--json"]);
    expect(leaf.code, leaf.stderr).toBe(0);
    expect(JSON.parse(leaf.stdout)).toEqual({ sessionId: session, leafId: mainLeaf });
    expect((await snapshotOf(e2e.home, session)).session.leafEntryId).toBe(mainLeaf);

    const fork = await e2e.cli(["sessions", "fork", short, firstAnswer.id.slice(0, 8), "--json"]);
    expect(fork.code, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout) as { sessionId: string };
    const forkSnap = await snapshotOf(e2e.home, forked.sessionId);
    expect(forked.sessionId).not.toBe(session);
    expect(userTexts(forkSnap)).toEqual(["Name a French city"]);
    // The path keeps its entry ids and labels, and ends at the entry forked from.
    expect(forkSnap.activePath).toContain(firstAnswer.id);
    expect(forkSnap.labelsByEntryId[firstAnswer.id]).toBe("the capital");
    // A dozen CLI commands: given room on a loaded machine.
  }, 90_000);

  it("refuses bad ids and flags with exit 2, changing nothing", async () => {
    const storeDir = join(e2e.dir, "ambiguous");
    await withStore(storeDir, async (store) => {
      await store.createSession({ id: "abc-one" });
      const two = await store.createSession({ id: "abc-two" });
      await store.appendMessage(two.id, { role: "user", content: "hi" });
    });
    const ambiguous = await e2e.cli(["sessions", "show", "abc", "--store", storeDir]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/prefix abc is ambiguous: 2 sessions start with it \(abc-one, abc-two\)/);
    const unknown = await e2e.cli(["sessions", "tree", "zzz", "--store", storeDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Session zzz does not exist/);
    const noEntry = await e2e.cli(["sessions", "leaf", "abc-t", "ffff", "--store", storeDir]);
    expect(noEntry.code).toBe(2);
    expect(noEntry.stderr).toMatch(/No entry of session abc-two has the id or id prefix ffff/);
    const emptyFork = await e2e.cli(["sessions", "fork", "abc-o", "--store", storeDir]);
    expect(emptyFork.code).toBe(2);
    const emptyLabel = await e2e.cli(["sessions", "label", "abc-t", "ffff", "  ", "--store", storeDir]);
    expect(emptyLabel.code).toBe(2);
    expect(emptyLabel.stderr).toMatch(/the label is empty/);
    const fromAlone = await e2e.cli(["run", "--from", "abcd", "hello"]);
    expect(fromAlone.code).toBe(2);
    expect(fromAlone.stderr).toMatch(/--from needs --session/);
  });
});

describe("arbor run - and --prompt-file", () => {
  it("reads the prompt from stdin or a file, and refuses an empty or missing one", async () => {
    const baseURL = await fake("From stdin.", "From a file.");
    const viaStdin = done(await e2e.cli(runArgs(baseURL, "-"), { input: "Summarize\nthis text\n" }));
    expect(userTexts(await snapshotOf(e2e.home, viaStdin.session_id))).toEqual(["Summarize\nthis text\n"]);
    // --json's done line carries the result: status, usage, cost and the final text.
    expect(viaStdin).toMatchObject({ status: "done", steps: 1, usage: { input: 50, output: 5 }, text: "From stdin." });
    expect(typeof viaStdin.cost).toBe("number");
    const file = join(e2e.dir, "task.md");
    await writeFile(file, "Do the task in the file");
    const viaFile = done(await e2e.cli(runArgs(baseURL, "--prompt-file", file)));
    expect(userTexts(await snapshotOf(e2e.home, viaFile.session_id))).toEqual(["Do the task in the file"]);

    const empty = await e2e.cli(runArgs(baseURL, "-"), { input: "  \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/the prompt read from stdin is empty/);
    const missing = await e2e.cli(runArgs(baseURL, "--prompt-file", join(e2e.dir, "nope.md")));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.md: no such file/);
    const both = await e2e.cli(runArgs(baseURL, "--prompt-file", file, "words"));
    expect(both.code).toBe(2);
    expect(e2e.server?.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(2);
  });
});
