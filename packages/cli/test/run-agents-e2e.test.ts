import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";

/** `arbor run --agent <custom>` with the agent defined in the workspace's arbor.json, over the fake OpenAI server. */

let dir: string;
let home: string;
let workspace: string;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-agents-e2e-"));
  home = join(dir, "home");
  workspace = join(dir, "ws");
  await mkdir(join(workspace, "prompts"), { recursive: true });
  await writeFile(join(workspace, "notes.txt"), "the answer is 42\n");
  await writeFile(join(workspace, "prompts", "reviewer.md"), "You are Reviewer, who reads and never edits.");
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REVIEWER = {
  description: "Reviews the workspace without changing it",
  promptFile: "prompts/reviewer.md",
  model: "openai-compatible/fake",
  tools: ["read", "grep"],
  preset: "plan",
};

async function config(value: unknown): Promise<void> {
  await writeFile(join(workspace, "arbor.json"), JSON.stringify(value));
}

/** Sessions in the default file store under ARBOR_HOME. */
async function sessionCount(): Promise<number> {
  return (await readdir(join(home, "sessions")).catch(() => [])).length;
}

interface ChatBody {
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ function: { name: string } }>;
}

describe("arbor run --agent with agents from arbor.json", () => {
  it("runs the configured agent with its prompt file, model and tool list", async () => {
    await config({ agents: { reviewer: REVIEWER } });
    server = await startFakeOpenAI({
      script: [[toolCall("read", { path: "notes.txt" })], [text("Reviewed: the notes say 42.")]],
    });
    const r = await arbor(["run", "--json", "--agent", "reviewer", "--base-url", server.baseURL, "--cwd", workspace, "review"], {
      home,
    });
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
    server = await startFakeOpenAI({ script: [[text("never")]] });
    const before = await sessionCount();
    // The run before stored its session where this counts, so the count below can tell.
    expect(before).toBeGreaterThan(0);
    const r = await arbor(["run", "--agent", "reviewr", "--base-url", server.baseURL, "--cwd", workspace, "review"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown agent "reviewr"\. Agents you can run: build, plan, reviewer/);
    expect(server.callCount).toBe(0);
    expect(await sessionCount()).toBe(before);
  });

  it("an invalid agent in arbor.json fails naming the file and key, and writes nothing", async () => {
    await config({ agents: { reviewer: { ...REVIEWER, tools: "read" } } });
    server = await startFakeOpenAI({ script: [[text("never")]] });
    const before = await sessionCount();
    const r = await arbor(["run", "--agent", "reviewer", "--base-url", server.baseURL, "--cwd", workspace, "review"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(workspace, "arbor.json"));
    expect(r.stderr).toContain("agents.reviewer.tools");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.callCount).toBe(0);
    expect(await sessionCount()).toBe(before);
  });
});
