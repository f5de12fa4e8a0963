import type { RunEvent } from "@arbor/core";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { snapshotOf } from "./helpers/session.js";

/** `arbor sessions summary` end to end: the CLI, the fake OpenAI-compatible server, a temporary ARBOR_HOME. */

const e2e = setupCliE2e("arbor-summary-e2e-", { files: { "notes.txt": "ship on Friday\n" } });

describe("arbor sessions summary", () => {
  it("has the summary helper write what the session did, from its messages, and stores nothing", {
    timeout: 90_000,
  }, async () => {
    const baseURL = await e2e.fake([
      [toolCall("read", { path: "notes.txt" })],
      [text("The notes say to ship on Friday.")],
      [text("- Asked what notes.txt says\n- Read notes.txt: ship on Friday"), usage({ inputTokens: 300, outputTokens: 20 })],
    ]);
    const first = await e2e.cli(e2e.runArgs(baseURL, "what do the notes say?"));
    expect(first.code, first.stderr).toBe(0);
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const before = await snapshotOf(e2e.home, sessionId);

    const r = await e2e.cli(["sessions", "summary", sessionId.slice(0, 8), "--json", ...e2e.modelArgs(baseURL)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      sessionId,
      summary: "- Asked what notes.txt says\n- Read notes.txt: ship on Friday",
      model: "openai-compatible/fake",
      usage: { input: 300, output: 20 },
      costKnown: false,
    });
    // The helper reads the conversation as text under its own instruction, tool calls and results included.
    const request = e2e.server?.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }>; tools?: unknown };
    expect(request.messages[0]).toMatchObject({ role: "system" });
    expect(String(request.messages[0]!.content)).toMatch(/^Summarize the conversation below for someone who was not there/);
    const conversation = JSON.stringify(request.messages[1]);
    expect(conversation).toContain("what do the notes say?");
    expect(conversation).toContain("ship on Friday");
    expect(request.tools).toBeUndefined();
    expect((await snapshotOf(e2e.home, sessionId)).entries).toEqual(before.entries);

    const plain = await e2e.cli(["sessions", "summary", sessionId, ...e2e.modelArgs(baseURL)]);
    // The script is spent: the fake server's error is the summary's failure, said as such, exit 1.
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/summary model openai-compatible\/fake failed/);

    // No model named and the session's own cannot be called here (no base URL for it): the error names
    // that model and how to name one.
    const unnamed = await e2e.cli(["sessions", "summary", sessionId]);
    expect(unnamed.code).not.toBe(0);
    expect(unnamed.stderr).toMatch(/session's last model openai-compatible\/fake cannot be called here/);
    expect(unnamed.stderr).toMatch(/Pass --model <provider>\/<model>/);

    const empty = await e2e.cli(["sessions", "summary", "nosuchsession", ...e2e.modelArgs(baseURL)]);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/does not exist/);
  });
});
