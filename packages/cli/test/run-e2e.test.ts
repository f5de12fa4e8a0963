import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent, Snapshot } from "@arbor/core";
import { error, hang, type Script, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { CliResult } from "./helpers/cli.js";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";
import { messagesOf, snapshotOf } from "./helpers/session.js";

/**
 * End to end: `arbor` against the fake OpenAI-compatible server, with ARBOR_HOME (the default file
 * store) and the workspace in a temporary directory. Commands run in this process (`e2e.cli`), but
 * Ctrl-C, which is about the process, is sent to a real one.
 */

const STACK_TRACE = /\n\s+at /;

const e2e = setupCliE2e("arbor-run-e2e-", { files: { "notes.txt": "the answer is 42\n", ".env": "SECRET_TOKEN=hunter2\n" } });

/** `arbor run --json` against the fake server, in the test workspace. */
const runArgs = e2e.runArgs;

const events = runEvents;

function expectStream(r: CliResult, last: "done" | "error"): RunEvent[] {
  const all = events(r);
  expect(all.length).toBeGreaterThan(0);
  for (const e of all) expect(typeof e.session_id, JSON.stringify(e)).toBe("string");
  expect(new Set(all.map((e) => e.session_id)).size).toBe(1);
  expect(all.at(-1)?.type).toBe(last);
  expect(all.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
  return all;
}

const snapshot = (id: string): Promise<Snapshot> => snapshotOf(e2e.home, id);
const messages = messagesOf;

const READ_THEN_ANSWER: Script = [
  [text("Let me look."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 120, outputTokens: 9 })],
  [text("The notes say ", { chunks: 2 }), text("42."), usage({ inputTokens: 160, outputTokens: 6 })],
];

describe("arbor run", () => {
  it("--json streams every event with its session id, ends with done, and stores the whole exchange", async () => {
    const baseURL = await e2e.fake(READ_THEN_ANSWER);
    const r = await e2e.cli(runArgs(baseURL, "What do the notes say?"));
    expect(r.code, r.stderr).toBe(0);
    const all = expectStream(r, "done");
    const types = all.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["llm_start", "token", "tool_start", "tool_end", "llm_end"]));
    const end = all.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ tool: "read", is_error: false });
    expect((end as { output: string }).output).toContain("the answer is 42");
    expect(e2e.server?.callCount).toBe(2);

    const snap = await snapshot(all[0]!.session_id);
    const roles = messages(snap).map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(JSON.stringify(messages(snap)[0])).toContain("What do the notes say?");
  });

  it("--session continues the session with the next prompt", async () => {
    const baseURL = await e2e.fake([[text("First.")], [text("Second.")]]);
    const first = await e2e.cli(runArgs(baseURL, "one"));
    expect(first.code, first.stderr).toBe(0);
    const id = events(first)[0]!.session_id;
    const second = await e2e.cli(runArgs(baseURL, "--session", id, "two"));
    expect(second.code, second.stderr).toBe(0);
    expect(expectStream(second, "done")[0]!.session_id).toBe(id);
    const roles = messages(await snapshot(id)).map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("prints a live text view without --json: the answer, tool lines, usage and how to go on", async () => {
    const baseURL = await e2e.fake(READ_THEN_ANSWER);
    const r = await e2e.cli(["run", ...e2e.modelArgs(baseURL), "What", "do the notes say?"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Let me look\.\n✓ read notes\.txt (\d+ ms|[\d.]+ s)\nThe notes say 42\.\n\n✓ done · 2 steps · /);
    expect(r.stdout).toContain("280 in · 15 out tokens");
    const id = /^session (\S+)$/m.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect(r.stdout).toContain(`arbor run --session ${id} "…"`);
    expect(r.stdout).toContain(`arbor sessions show ${id}`);
    expect(r.stderr).toBe("");
  });

  it("ends with an error line and exit 1 when the provider refuses the request", async () => {
    const baseURL = await e2e.fake([[error(400, { message: "This model does not exist here." })]]);
    const r = await e2e.cli(runArgs(baseURL, "hello"));
    expect(r.code).toBe(1);
    const last = expectStream(r, "error").at(-1);
    expect(JSON.stringify(last)).toContain("This model does not exist here.");
    expect(r.stderr).toMatch(/^error: .*This model does not exist here\./m);
    expect(r.stderr).not.toMatch(STACK_TRACE);
  });

  it("exits 2 naming the variable when the provider's key is missing, and writes no session", async () => {
    const r = await e2e.cli(["run", "--model", "openai/gpt-4o", "--cwd", e2e.workspace, "hello"], {
      env: { OPENAI_API_KEY: "" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*OPENAI_API_KEY/);
    expect(r.stdout).toBe("");
    const json = await e2e.cli(["run", "--json", "--model", "openai/gpt-4o", "--cwd", e2e.workspace, "hello"], {
      env: { OPENAI_API_KEY: "" },
    });
    expect(json.code).toBe(2);
    const last = expectStream(json, "error").at(-1);
    expect(last).toMatchObject({ type: "error", code: "missing_api_key" });
    const listed = await e2e.cli(["sessions", "list", "--json"]);
    const ids = (JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
    expect(ids).not.toContain(last?.session_id);
  });

  it("exits 2 for an unknown session and an invalid model, before any request", async () => {
    const baseURL = await e2e.fake([]);
    const unknown = await e2e.cli(runArgs(baseURL, "--session", "no-such-session", "hi"));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no-such-session/);
    const invalid = await e2e.cli(["run", "--model", "gpt4", "--cwd", e2e.workspace, "hi"]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: .*provider\/model/);
    expect(e2e.server?.callCount).toBe(0);
  });

  it("Ctrl-C aborts a hanging run: exit 130, and the session keeps the user's message", async () => {
    const baseURL = await e2e.fake([[text("Working on it"), hang()]]);
    const running = e2e.startArbor(runArgs(baseURL, "take your time"));
    await running.waitForStdout(/"type":"token"/);
    running.child.kill("SIGINT");
    const r = await running.result;
    expect(r.code, r.stderr).toBe(130);
    const all = expectStream(r, "error");
    expect(all.at(-1)).toMatchObject({ code: "aborted" });
    expect(r.stderr).toContain("interrupted");
    const snap = await snapshot(all[0]!.session_id);
    const user = messages(snap).find((m) => m.role === "user");
    expect(JSON.stringify(user)).toContain("take your time");
  });

  it("stops on an ask nobody can answer with exit 3, says how to allow it, and never tells the model it was rejected", async () => {
    const baseURL = await e2e.fake([
      [toolCall("read", { path: ".env" })],
      [toolCall("read", { path: ".env" })],
      [text("It holds a token.")],
    ]);
    const r = await e2e.cli(runArgs(baseURL, "read .env"));
    expect(r.code, r.stderr).toBe(3);
    const all = expectStream(r, "error");
    expect(all.at(-1)).toMatchObject({ code: "needs_answer" });
    expect(all.find((e) => e.type === "permission_request")).toMatchObject({ permission: "read", patterns: [".env"] });
    expect(JSON.stringify(all)).not.toContain("hunter2");
    const id = all[0]!.session_id;
    expect(r.stderr).toContain(`'arbor approve ${id} --permission read --pattern .env'`);
    expect(r.stderr).toContain(`arbor run --session ${id} "go on"`);
    // One model call: the run stopped at the ask, and the session holds no refusal for the model to read.
    expect(e2e.server?.callCount).toBe(1);
    expect(JSON.stringify(await snapshot(id)).match(/.{0,120}reject.{0,120}/i)?.[0]).toBeUndefined();

    // Answered later: the approval is recorded in the session and the continued run reads the file unasked.
    const noPattern = await e2e.cli(["approve", id, "--permission", "read"]);
    expect(noPattern.code).toBe(2);
    const allow = await e2e.cli(["approve", id.slice(0, 8), "--permission", "read", "--pattern", ".env"]);
    expect(allow.code, allow.stderr).toBe(0);
    expect(allow.stdout).toContain(`Allowed read for .env in session ${id}`);
    const next = await e2e.cli(runArgs(baseURL, "--session", id, "go on"));
    expect(next.code, next.stderr).toBe(0);
    const more = expectStream(next, "done");
    expect(more.find((e) => e.type === "permission_request")).toBeUndefined();
    expect(more.find((e) => e.type === "tool_end")).toMatchObject({ tool: "read", is_error: false });
  });

  it("--yes allows the ask", async () => {
    const baseURL = await e2e.fake([[toolCall("read", { path: ".env" })], [text("Read it.")]]);
    const r = await e2e.cli(runArgs(baseURL, "--yes", "read .env"));
    expect(r.code, r.stderr).toBe(0);
    const all = expectStream(r, "done");
    const end = all.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ tool: "read", is_error: false });
    expect((end as { output: string }).output).toContain("hunter2");
    expect(r.stderr).toBe("");
  });
});

describe("arbor demo", () => {
  it("replays the recorded fix on a fresh workspace: the tests really fail, then pass, and the session is stored", async () => {
    const r = await e2e.cli(["demo"]);
    expect(r.code, r.stderr).toBe(0);
    const ws = /^workspace\s+(\S+)/m.exec(r.stdout)?.[1];
    expect(ws).toBeDefined();
    try {
      // A duration is "N ms" or, on a loaded machine, "N.N s".
      expect(r.stdout).toMatch(/✓ bash node math\.test\.js (\d+ ms|[\d.]+ s) exit 1\n/);
      expect(r.stdout).toMatch(/✓ edit math\.js (\d+ ms|[\d.]+ s)\n/);
      expect(r.stdout).toMatch(/✓ bash node math\.test\.js (\d+ ms|[\d.]+ s)\n/);
      expect(r.stdout).toMatch(/✓ done · 6 steps · .* tokens · \$0\.\d{4}\n/);
      expect(await readFile(join(ws!, "math.js"), "utf8")).toContain("let total = 0;");
      expect(execFileSync(process.execPath, ["math.test.js"], { cwd: ws, encoding: "utf8" })).toContain("all 3 checks passed");

      const id = /^session (\S+)$/m.exec(r.stdout)?.[1];
      expect(r.stdout).toContain(`arbor sessions show ${id}`);
      expect(r.stdout).toContain(`arbor sessions tree ${id}`);
      const snap = await snapshot(id!);
      const all = messages(snap);
      const calls = all.flatMap((m) =>
        m.role === "assistant"
          ? m.content.filter((p) => p.type === "tool-call").map((p) => (p as { toolName: string }).toolName)
          : [],
      );
      // The run keeps a plan with the goal tool, so the inspector's Goals view has something to show.
      expect(calls).toEqual(["goal", "read", "read", "bash", "goal", "edit", "goal", "bash", "goal"]);
      expect(all.filter((m) => m.role === "tool")).toHaveLength(9);
      expect(snap.session.cwd).toBe(ws);
    } finally {
      if (ws && existsSync(ws)) await rm(ws, { recursive: true, force: true });
    }
  });

  it("--json and --store work as for run", async () => {
    const store = `sqlite:${join(e2e.dir, "demo.db")}`;
    const r = await e2e.cli(["demo", "--json", "--store", store, "--create"]);
    expect(r.code, r.stderr).toBe(0);
    const all = expectStream(r, "done");
    expect(all.filter((e) => e.type === "tool_end")).toHaveLength(9);
    const ws = /workspace (\S+)/.exec(r.stderr)?.[1];
    expect(ws).toBeDefined();
    await rm(ws!, { recursive: true, force: true });
    const shown = await e2e.cli(["sessions", "show", all[0]!.session_id, "--store", store]);
    expect(shown.code, shown.stderr).toBe(0);
  });
});
