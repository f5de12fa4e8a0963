import type { RunEvent } from "@arbor/core";
import { type FakeOpenAIServer, type ScriptStep, startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_MODEL, runEvents, setupCliE2e } from "./helpers/e2e.js";

/**
 * The goal tree and sub-traces end to end: `arbor` against the fake OpenAI-compatible
 * server. The main agent plans with `goal` and explores two branches in parallel; then `arbor
 * sessions list` and `show` display the sub-traces, their parent and the parent's agent_call goal.
 */

const e2e = setupCliE2e("arbor-explore-e2e-", { files: { "api.ts": "export const api = 1;\n" } });
/** One server for the whole file: the tests read the sessions of the first one's run. */
let server: FakeOpenAIServer;

interface ChatBody {
  messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> | null }>;
}

function textOf(content: ChatBody["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => p.text ?? "").join("");
}

/**
 * One answer for every request, chosen from the request itself: who is asking (the main agent or a
 * branch, by its task) and how far it got (its assistant turns). Branches run in parallel, so their
 * requests arrive in any order; this keeps every conversation on its own script.
 */
const conversation: ScriptStep = (call) => {
  const body = (call.source === "http" ? call.body : {}) as ChatBody;
  const users = body.messages.filter((m) => m.role === "user" && !textOf(m.content).startsWith("<system-reminder>"));
  const task = textOf(users.at(-1)?.content ?? "");
  const turn = body.messages.filter((m) => m.role === "assistant").length;
  if (task.startsWith("main:")) {
    switch (turn) {
      case 0:
        return [toolCall("goal", { add: "Compare the auth designs, Write the decision" })];
      case 1:
        return [toolCall("goal", { focus: "1" })];
      case 2:
        return [toolCall("explore", { branches: ["look at JWT", "look at sessions"], background: "A small web API." })];
      default:
        return [text("JWT fits: stateless and simple."), usage({ inputTokens: 300, outputTokens: 12 })];
    }
  }
  const branch = task.endsWith("look at JWT") ? "JWT" : "sessions";
  return turn === 0
    ? [toolCall("list", {}), usage({ inputTokens: 60, outputTokens: 5 })]
    : [text(`${branch}: reviewed, report ready.`), usage({ inputTokens: 80, outputTokens: 9 })];
};

beforeAll(async () => {
  server = await startFakeOpenAI({ script: Array.from({ length: 24 }, () => conversation) });
});
afterAll(() => server.close());

describe("a run that plans and explores, seen from the CLI", () => {
  it("arbor sessions list and show display the sub-traces, their parent and the agent_call goal", async () => {
    const run = await e2e.cli(e2e.runArgs(server.baseURL, "main: pick an auth design"));
    expect(run.code, run.stderr).toBe(0);
    // The explore call reports its branches as they go; the last report has both done.
    const progress = runEvents(run).filter((e) => e.type === "tool_progress" && e.tool === "explore");
    expect(progress.length).toBeGreaterThan(1);
    const last = progress.at(-1) as { title?: string; metadata?: { branches?: { task: string; status: string }[] } };
    expect(last.title).toBe("2/2 branches done");
    expect(last.metadata?.branches?.map((b) => `${b.task}: ${b.status}`).sort()).toEqual([
      "look at JWT: done",
      "look at sessions: done",
    ]);
    const events = run.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as RunEvent);
    expect(events.at(-1)?.type).toBe("done");
    const mainId = events[0]!.session_id;
    // 4 main calls and 2 per branch went over HTTP.
    expect(server.requests.length).toBe(8);

    const list = await e2e.cli(["sessions", "list"]);
    expect(list.code, list.stderr).toBe(0);
    const subLines = list.stdout.split("\n").filter((l) => l.includes("└ "));
    expect(subLines).toHaveLength(2);
    for (const line of subLines) expect(line).toMatch(new RegExp(`└ ${mainId}@explore-\\d{14}-00[12] `));
    expect(list.stdout).toContain("[explore, completed] look at JWT");
    expect(list.stdout).toContain("[explore, completed] look at sessions");
    // Sub-traces sit right under their parent.
    const lines = list.stdout.split("\n");
    const parentAt = lines.findIndex((l) => l.startsWith(mainId));
    expect(lines[parentAt + 1]).toContain("└ ");

    const show = await e2e.cli(["sessions", "show", mainId]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("Plan: main: pick an auth design");
    expect(show.stdout).toMatch(/\[→\] 1\. Compare the auth designs\n\s+agent_call \(explore\):/);
    expect(show.stdout).not.toContain("(id: ");
    expect(show.stdout).toContain("Sub-traces (2):");
    const subIds = [...show.stdout.matchAll(new RegExp(`${mainId}@explore-\\d{14}-\\d{3}`, "g"))].map((m) => m[0]);
    expect(new Set(subIds).size).toBe(2);

    const jwtId = subLines.find((l) => l.includes("look at JWT"))!.match(/└ (\S+)/)![1]!;
    const sub = await e2e.cli(["sessions", "show", jwtId]);
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stdout).toContain(`parent    ${mainId}`);
    expect(sub.stdout).toContain(`Started by ${mainId}, goal 1 "Compare the auth designs" (agent_call, explore, in_progress)`);
    expect(sub.stdout).toContain("JWT: reviewed, report ready.");
  });

  it("the text view says what each goal call changed and when each explore branch ends", async () => {
    const args = ["run", "--model", FAKE_MODEL, "--base-url", server.baseURL, "--cwd", e2e.workspace];
    const run = await e2e.cli([...args, "main: pick an auth design again"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    const added = lines.findIndex((l) => l.startsWith('✓ goal add "Compare the auth designs, Write the decision"'));
    expect(added, run.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[added + 1]).toMatch(/^ {2}\S/);
    expect(lines.some((l) => l.startsWith("✓ goal focus 1"))).toBe(true);
    expect(run.stdout).toMatch(/^ {2}explore #1 done: look at JWT, 2 steps$/m);
    expect(run.stdout).toMatch(/^ {2}explore #2 done: look at sessions, 2 steps$/m);
  });
});
