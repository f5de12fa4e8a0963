import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { SUMMARY_SYSTEM_PROMPT } from "@arbor/core/context";
import { type StepContext, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { writeSmallWindowWorkspace } from "./helpers/compaction.js";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";

/** `arbor compact` end to end: the CLI, the fake OpenAI-compatible server, a temporary ARBOR_HOME. */

const e2e = setupCliE2e("arbor-compact-e2e-");

const model = (baseURL: string) => ["--model", FAKE_MODEL, "--base-url", baseURL];

describe("automatic compaction through arbor run", () => {
  it("a run far longer than the model's window completes, and sessions tree shows its compactions", async () => {
    const ws = join(e2e.dir, "long");
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
    const baseURL = await e2e.fake(Array.from({ length: 60 }, () => step));
    const r = await e2e.cli([
      "run",
      "--json",
      ...model(baseURL),
      "--cwd",
      ws,
      "--max-turns",
      "40",
      "read big.txt again and again",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const sessionId = (JSON.parse(r.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const tree = await e2e.cli(["sessions", "tree", sessionId]);
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
    const baseURL = await e2e.fake([
      [text("The numbers are 3 and 4.")],
      [text("## Goal\nAdd the numbers 3 and 4.\n## Next steps\nReport 7.")],
    ]);
    const first = await e2e.cli(["run", "--json", ...model(baseURL), "--cwd", e2e.workspace, "what are the numbers?"]);
    expect(first.code).toBe(0);
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;

    const compacted = await e2e.cli(["compact", sessionId, "--focus", "the numbers", ...model(baseURL), "--cwd", e2e.workspace]);
    expect(compacted.stderr).toBe("");
    expect(compacted.code).toBe(0);
    expect(compacted.stdout).toMatch(new RegExp(`^Compacted session ${sessionId}: 2 messages summarized, none kept verbatim\\.`));
    // The fake model has no catalog price: the summary's cost is unknown, not $0.
    expect(compacted.stdout).toContain("\nSummary cost: price unknown.\n");
    expect(compacted.stdout).not.toContain("$0");
    const request = JSON.stringify(e2e.server?.requests[1]?.body);
    expect(request).toContain("the numbers");
    expect(request).toContain("what are the numbers?");

    const tree = await e2e.cli(["sessions", "tree", sessionId]);
    expect(tree.code).toBe(0);
    expect(tree.stdout).toMatch(/\* \w+ compaction: Add the numbers 3 and 4\. \(was \d+ tokens\) ← leaf/);
  });

  it("prints the result as JSON with --json", async () => {
    const baseURL = await e2e.fake([[text("Hi.")], [text("## Goal\nGreet.")]]);
    const first = await e2e.cli(["run", "--json", ...model(baseURL), "--cwd", e2e.workspace, "hello"]);
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const r = await e2e.cli(["compact", sessionId, "--json", ...model(baseURL), "--cwd", e2e.workspace]);
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
    const baseURL = await e2e.fake([[text("Hi.")]]);
    const first = await e2e.cli(["run", "--json", ...model(baseURL), "--cwd", e2e.workspace, "hello"]);
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const unknown = await e2e.cli(["compact", sessionId, "--model", "nosuch/model", "--cwd", e2e.workspace]);
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toMatch(/nosuch/);
    const noKey = await e2e.cli(["compact", sessionId, "--model", "anthropic/claude-sonnet-4-5", "--cwd", e2e.workspace], {
      env: { ANTHROPIC_API_KEY: "" },
    });
    expect(noKey.code, noKey.stderr).toBe(2);
    expect(noKey.stderr).toMatch(/ANTHROPIC_API_KEY/);
    // Nothing reached the run's model server: the session's own model was not used instead.
    expect(e2e.server?.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(1);
  });

  it("exits 2 with a clear message for bad usage or an unknown session", async () => {
    const missing = await e2e.cli(["compact"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing <session>");
    const unknown = await e2e.cli([
      "compact",
      "00000000-0000-4000-8000-000000000000",
      "--model",
      "openai-compatible/x",
      "--base-url",
      "http://127.0.0.1:9/v1",
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Session 00000000-0000-4000-8000-000000000000 does not exist/);
    const empty = await e2e.cli(["compact", "00000000-0000-4000-8000-000000000000", "--focus", " "]);
    expect(empty.code).toBe(2);
  });
});
