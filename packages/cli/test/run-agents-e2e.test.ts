import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";

/** `arbor run --agent <custom>` with the agent defined in the workspace's arbor.json, over the fake OpenAI server. */

const e2e = setupCliE2e("arbor-agents-e2e-", { files: { "notes.txt": "the answer is 42\n" } });

beforeAll(async () => {
  await mkdir(join(e2e.workspace, "prompts"), { recursive: true });
  await writeFile(join(e2e.workspace, "prompts", "reviewer.md"), "You are Reviewer, who reads and never edits.");
});

const REVIEWER = {
  description: "Reviews the workspace without changing it",
  promptFile: "prompts/reviewer.md",
  model: FAKE_MODEL,
  tools: ["read", "grep"],
  preset: "plan",
};

async function config(value: unknown): Promise<void> {
  await writeFile(join(e2e.workspace, "arbor.json"), JSON.stringify(value));
}

/** Sessions in the default file store under ARBOR_HOME. */
async function sessionCount(): Promise<number> {
  return (await readdir(join(e2e.home, "sessions")).catch(() => [])).length;
}

interface ChatBody {
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ function: { name: string } }>;
}

describe("arbor run --agent with agents from arbor.json", () => {
  it("runs the configured agent with its prompt file, model and tool list", async () => {
    await config({ agents: { reviewer: REVIEWER } });
    const server = await e2e.startFake({
      script: [[toolCall("read", { path: "notes.txt" })], [text("Reviewed: the notes say 42.")]],
    });
    const r = await e2e.cli([
      "run",
      "--json",
      "--agent",
      "reviewer",
      "--base-url",
      server.baseURL,
      "--cwd",
      e2e.workspace,
      "review",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const last = JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!);
    expect(last).toMatchObject({ type: "done" });
    const chats = server.requests.filter((q) => q.path.endsWith("/chat/completions")).map((q) => q.body as ChatBody);
    expect(chats).toHaveLength(2);
    expect(JSON.stringify(chats[0]!.messages[0])).toContain("You are Reviewer, who reads and never edits.");
    expect((chats[0]!.tools ?? []).map((t) => t.function.name).sort()).toEqual(["grep", "read"]);
    expect(JSON.stringify(chats[1]!.messages)).toContain("the answer is 42");
  });

  it("an unknown --agent fails with the names of the agents it could run, and writes nothing", async () => {
    await config({ agents: { reviewer: REVIEWER } });
    const server = await e2e.startFake({ script: [[text("never")]] });
    const before = await sessionCount();
    // The run before stored its session where this counts, so the count below can tell.
    expect(before).toBeGreaterThan(0);
    const r = await e2e.cli(["run", "--agent", "reviewr", "--base-url", server.baseURL, "--cwd", e2e.workspace, "review"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown agent "reviewr"\. Agents you can run: build, plan, reviewer/);
    expect(server.callCount).toBe(0);
    expect(await sessionCount()).toBe(before);
  });

  it("an invalid agent in arbor.json fails naming the file and key, and writes nothing", async () => {
    await config({ agents: { reviewer: { ...REVIEWER, tools: "read" } } });
    const server = await e2e.startFake({ script: [[text("never")]] });
    const before = await sessionCount();
    const r = await e2e.cli(["run", "--agent", "reviewer", "--base-url", server.baseURL, "--cwd", e2e.workspace, "review"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(e2e.workspace, "arbor.json"));
    expect(r.stderr).toContain("agents.reviewer.tools");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.callCount).toBe(0);
    expect(await sessionCount()).toBe(before);
  });
});
