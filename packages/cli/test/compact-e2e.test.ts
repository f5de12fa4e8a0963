import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { SUMMARY_SYSTEM_PROMPT } from "@arbor/core/context";
import { type FakeOpenAIServer, type Script, type StepContext, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";
import { writeSmallWindowWorkspace } from "./helpers/compaction.js";

/** `arbor compact` end to end: the built binary, the fake OpenAI-compatible server, a temporary ARBOR_HOME. */

let dir: string;
let home: string;
let workspace: string;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-compact-e2e-"));
  home = join(dir, "home");
  workspace = join(dir, "ws");
  await mkdir(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function fake(script: Script): Promise<string> {
  server = await startFakeOpenAI({ script });
  return server.baseURL;
}

const model = (baseURL: string) => ["--model", "openai-compatible/fake", "--base-url", baseURL];

describe("automatic compaction through arbor run", () => {
  it("a run far longer than the model's window completes, and sessions tree shows its compactions", async () => {
    const ws = join(dir, "long");
    await mkdir(ws);
    await writeSmallWindowWorkspace(ws);
    const READS = 12;
    let reads = 0;
    const step = (call: StepContext) => {
      const body = (call as { body: { messages: Array<{ content: unknown }> } }).body;
      if (body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT)
        return [text("## Goal\nRead big.txt many times.\n## Next steps\nKeep reading.")];
      reads++;
      if (reads > READS) return [text("Read it all.")];
      return [toolCall("read", { path: "big.txt", offset: reads })];
    };
    const baseURL = await fake(Array.from({ length: 60 }, () => step));
    const r = await arbor(
      ["run", "--json", ...model(baseURL), "--cwd", ws, "--max-turns", "40", "read big.txt again and again"],
      { home },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const sessionId = (JSON.parse(r.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const tree = await arbor(["sessions", "tree", sessionId], { home });
    const compactions = tree.stdout
      .split("\n")
      .filter((l) => /compaction: Read big\.txt many times\. \(was \d+ tokens\)/.test(l));
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    expect(tree.stdout).toContain("custom_message: arbor.continue:");
    expect(tree.stdout).toMatch(/assistant: Read it all\. ← leaf/);
  });
});

describe("arbor compact", () => {
  it("summarizes a session with a focus, and sessions tree shows the compaction", async () => {
    const baseURL = await fake([
      [text("The numbers are 3 and 4.")],
      [text("## Goal\nAdd the numbers 3 and 4.\n## Next steps\nReport 7.")],
    ]);
    const first = await arbor(["run", "--json", ...model(baseURL), "--cwd", workspace, "what are the numbers?"], { home });
    expect(first.code).toBe(0);
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;

    const compacted = await arbor(["compact", sessionId, "--focus", "the numbers", ...model(baseURL), "--cwd", workspace], {
      home,
    });
    expect(compacted.stderr).toBe("");
    expect(compacted.code).toBe(0);
    expect(compacted.stdout).toMatch(new RegExp(`^Compacted session ${sessionId}: 2 messages summarized, none kept verbatim\\.`));
    // The fake model has no catalog price: the summary's cost is unknown, not $0.
    expect(compacted.stdout).toContain("\nSummary cost: price unknown.\n");
    expect(compacted.stdout).not.toContain("$0");
    const request = JSON.stringify(server?.requests[1]?.body);
    expect(request).toContain("the numbers");
    expect(request).toContain("what are the numbers?");

    const tree = await arbor(["sessions", "tree", sessionId], { home });
    expect(tree.code).toBe(0);
    expect(tree.stdout).toMatch(/\* \w+ compaction: Add the numbers 3 and 4\. \(was \d+ tokens\) ← leaf/);
  });

  it("prints the result as JSON with --json", async () => {
    const baseURL = await fake([[text("Hi.")], [text("## Goal\nGreet.")]]);
    const first = await arbor(["run", "--json", ...model(baseURL), "--cwd", workspace, "hello"], { home });
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const r = await arbor(["compact", sessionId, "--json", ...model(baseURL), "--cwd", workspace], { home });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      sessionId,
      entryId: expect.any(String),
      summarized: 2,
      kept: 0,
      costKnown: false,
    });
  });

  it("--model that cannot be resolved is an error, not another model", async () => {
    const baseURL = await fake([[text("Hi.")]]);
    const first = await arbor(["run", "--json", ...model(baseURL), "--cwd", workspace, "hello"], { home });
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const unknown = await arbor(["compact", sessionId, "--model", "nosuch/model", "--cwd", workspace], { home });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toMatch(/nosuch/);
    const noKey = await arbor(["compact", sessionId, "--model", "anthropic/claude-sonnet-4-5", "--cwd", workspace], {
      home,
      env: { ANTHROPIC_API_KEY: "" },
    });
    expect(noKey.code, noKey.stderr).toBe(2);
    expect(noKey.stderr).toMatch(/ANTHROPIC_API_KEY/);
    // Nothing reached the run's model server: the session's own model was not used instead.
    expect(server?.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(1);
  });

  it("exits 2 with a clear message for bad usage or an unknown session", async () => {
    const missing = await arbor(["compact"], { home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing <session>");
    const unknown = await arbor(
      [
        "compact",
        "00000000-0000-4000-8000-000000000000",
        "--model",
        "openai-compatible/x",
        "--base-url",
        "http://127.0.0.1:9/v1",
      ],
      { home },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Session 00000000-0000-4000-8000-000000000000 does not exist/);
    const empty = await arbor(["compact", "00000000-0000-4000-8000-000000000000", "--focus", " "], { home });
    expect(empty.code).toBe(2);
  });
});
