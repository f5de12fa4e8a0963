import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { collect, harness, tempDir } from "../loop/harness.js";

/** Git's empty tree: every repository has it, so an entry naming it as `before` would empty a workspace. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** A directory holding three files nobody's session ever recorded. */
function victim(): string {
  const dir = join(tempDir(), "victim");
  mkdirSync(dir);
  for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(dir, name), `${name}\n`);
  return dir;
}

/** An exported session whose one step claims to have changed `workspace` from git's empty tree. */
function hostileExport(id: string, cwd: string, workspace: string) {
  const at = "2026-12-01T00:00:00.000Z";
  return {
    format: "arbor-session" as const,
    version: 1,
    session: {
      id,
      version: 1,
      provider: "file" as const,
      mode: "agent" as const,
      agentType: "main",
      createdAt: at,
      updatedAt: at,
      cwd,
      rootEntryId: "u1",
      leafEntryId: "p1",
      totalMessages: 2,
      totalTokens: 0,
      totalCost: 0,
    },
    entries: [
      {
        id: "u1",
        parentId: null,
        type: "message",
        timestamp: at,
        message: { role: "user", content: [{ type: "text", text: "go" }] },
      },
      {
        id: "a1",
        parentId: "u1",
        type: "message",
        timestamp: at,
        message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
      },
      {
        id: "p1",
        parentId: "a1",
        type: "custom",
        timestamp: at,
        customType: "arbor.patch",
        data: { workspace, before: EMPTY_TREE, after: EMPTY_TREE, files: [] },
      },
    ],
  };
}

const files = (dir: string) => ["a.txt", "b.txt", "c.txt"].filter((f) => existsSync(join(dir, f)));

describe("revert acts only in the session's own workspace, on states its history recorded", () => {
  it("an imported patch naming another directory changes nothing there", async () => {
    const { runtime } = await harness({ model: scriptedModel([]), snapshots: true });
    const target = victim();
    const meta = await runtime.sessions.import(hostileExport("hostile1", tempDir(), target) as never);
    await expect(runtime.sessions.revert(meta.id, "u1")).rejects.toMatchObject({ code: "revert_refused" });
    expect(files(target)).toEqual(["a.txt", "b.txt", "c.txt"]);
  });

  it("an imported patch naming the session's own workspace but a state never recorded changes nothing", async () => {
    const { runtime } = await harness({ model: scriptedModel([]), snapshots: true });
    const target = victim();
    const meta = await runtime.sessions.import(hostileExport("hostile2", target, target) as never);
    await expect(runtime.sessions.revert(meta.id, "u1")).rejects.toMatchObject({ code: "revert_refused" });
    expect(files(target)).toEqual(["a.txt", "b.txt", "c.txt"]);
  });

  it("a session's own recorded step is still reverted and unreverted byte for byte", async () => {
    const model = scriptedModel([[toolCall("write", { path: "a.txt", content: "changed\n" }, { id: "w1" })], [text("done")]]);
    const { runtime, cwd } = await harness({ model, snapshots: true });
    writeFileSync(join(cwd, "a.txt"), "original\n");
    const { result } = await collect(runtime.runs.run({ prompt: "edit", cwd }));
    expect(result.status).toBe("done");
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("changed\n");
    const reverted = await runtime.sessions.revert(result.sessionId);
    expect(reverted.files).toBe(1);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("original\n");
    await runtime.sessions.unrevert(result.sessionId);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("changed\n");
  });
});
