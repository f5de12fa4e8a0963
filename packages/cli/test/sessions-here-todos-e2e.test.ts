import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SessionMeta } from "@arbor/core";
import { beforeAll, describe, expect, it } from "vitest";
import { TODOS_ENTRY_TYPE } from "../../core/src/todos/todo-record.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { runArborInProcess } from "./helpers/in-process.js";
import { withStore } from "./helpers/seed.js";

/** The CLI against a file store: `sessions list --here` and the todo list in `sessions show`. */
describe("arbor sessions by workspace, and their todos", () => {
  const e2e = setupCliE2e("arbor-cli-here-", { realpath: true, workspace: false });
  let spec: string;
  let home: string;
  let projectA: string;
  let projectB: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    spec = join(e2e.dir, "store");
    home = e2e.home;
    projectA = join(e2e.dir, "a");
    projectB = join(e2e.dir, "b");
    await Promise.all([mkdir(projectA), mkdir(projectB), mkdir(home)]);
    await withStore(spec, async (store) => {
      ids.a1 = (await store.createSession({ cwd: projectA, title: "first in a" })).id;
      ids.b = (await store.createSession({ cwd: projectB, title: "in b" })).id;
      ids.a2 = (await store.createSession({ cwd: projectA, title: "second in a" })).id;
      ids.none = (await store.createSession({ title: "no workspace" })).id;
      const first = await store.appendMessage(ids.a1, { role: "user", content: "plan it" });
      await store.appendEntry(ids.a1, {
        type: "custom",
        customType: TODOS_ENTRY_TYPE,
        data: { todos: [{ content: "Write the parser", status: "in_progress" }] },
      });
      await store.appendEntry(ids.a1, {
        type: "custom",
        customType: TODOS_ENTRY_TYPE,
        data: {
          todos: [
            { content: "Write the parser", status: "completed" },
            { content: "Test the parser", status: "pending", priority: "high" },
          ],
        },
      });
      // A second branch from the first message, with a list of its own.
      await store.switchLeaf(ids.a1, first.id);
      await store.appendEntry(ids.a1, {
        type: "custom",
        customType: TODOS_ENTRY_TYPE,
        data: { todos: [{ content: "Read the grammar", status: "pending" }] },
      });
    });
  });

  it("list --here shows only the sessions of the current directory", async () => {
    const r = await runArborInProcess(["sessions", "list", "--here", "--json", "--store", spec], { home, cwd: projectA });
    expect(r.code).toBe(0);
    const listed = (JSON.parse(r.stdout) as { sessions: SessionMeta[] }).sessions.map((s) => s.id);
    expect(listed).toEqual([ids.a2, ids.a1]);
    const human = await runArborInProcess(["sessions", "list", "--here", "--store", spec], { home, cwd: projectB });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("in b");
    expect(human.stdout).not.toContain("first in a");
    const everything = await runArborInProcess(["sessions", "list", "--json", "--store", spec], { home, cwd: projectA });
    expect((JSON.parse(everything.stdout) as { sessions: SessionMeta[] }).sessions).toHaveLength(4);
  });

  it("show prints the todo list of the active branch", async () => {
    const r = await runArborInProcess(["sessions", "show", ids.a1 as string, "--store", spec], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Todos:");
    expect(r.stdout).toContain("[ ] Read the grammar");
    expect(r.stdout).not.toContain("Test the parser");
    const plain = await runArborInProcess(["sessions", "show", ids.b as string, "--store", spec], { home });
    expect(plain.stdout).not.toContain("Todos:");
  });
});
