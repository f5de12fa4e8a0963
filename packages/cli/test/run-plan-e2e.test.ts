import { type Script, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { createJsonView } from "../src/render/live.js";
import { createPlanApprovalHandler } from "../src/run/plan-approval.js";
import { FAKE_MODEL, runEvents, setupCliE2e } from "./helpers/e2e.js";
import { captureIo } from "./helpers/io.js";

/** `arbor run` in plan mode against the fake OpenAI-compatible server: the replanner's structured output over HTTP too. */

const e2e = setupCliE2e("arbor-plan-e2e-");

const PLAN = toolCall("plan_create", { title: "Tidy up", steps: ["Look around", { title: "Change things" }, "Check"] });

async function run(script: Script, ...flags: string[]) {
  const server = await e2e.startFake({ script });
  const args = ["run", "--json", "--model", FAKE_MODEL, "--base-url", server.baseURL, "--cwd", e2e.workspace];
  const r = await e2e.cli([...args, ...flags, "tidy the workspace"], { env: { PLAN_REQUIRE_APPROVAL: "true" } });
  const events = runEvents(r);
  return { r, events };
}

describe("arbor run in plan mode", () => {
  it("--yes approves the plan; a step's [ERROR] asks the replanner, which finishes over HTTP", async () => {
    const { r, events } = await run(
      [
        [PLAN],
        [text("[ERROR] nothing here to tidy")],
        [
          toolCall("replan", {
            action: "finish",
            response: "The workspace is already tidy.",
            revised_steps: [],
            reason: "empty",
          }),
        ],
      ],
      "--yes",
    );
    expect(r.code, r.stderr).toBe(0);
    const types = events.map((e) => e.type);
    expect(types).toContain("plan_created");
    expect(types).toContain("plan_approval_request");
    expect(events.filter((e) => e.type === "plan_updated").map((e) => `${e.step_id}:${e.status}`)).toEqual([
      "1:running",
      "1:completed",
      "2:completed",
      "3:completed",
    ]);
    expect(events.at(-1)?.type).toBe("done");
    expect(events.filter((e) => e.type === "token").at(-1)).toMatchObject({ content: "The workspace is already tidy." });
    const bodies = e2e.server!.requests.filter((q) => q.method === "POST").map((q) => q.body as Record<string, unknown>);
    expect(bodies).toHaveLength(3);
    // The replanner: one non-streaming call whose answer is a forced tool call.
    expect(bodies[2]).toMatchObject({ tool_choice: { type: "function", function: { name: "replan" } } });
    expect(bodies[2]!.stream).not.toBe(true);
  });

  it("without --yes and without a terminal the run stops with exit 3, and 'arbor approve' carries it on later", async () => {
    const { r, events } = await run([
      [PLAN],
      [text("[ERROR] nothing here to tidy")],
      [toolCall("replan", { action: "finish", response: "The workspace is already tidy.", revised_steps: [], reason: "empty" })],
    ]);
    expect(r.code, r.stderr).toBe(3);
    const created = events.find((e) => e.type === "plan_created");
    const planId = created?.type === "plan_created" ? created.plan.plan_id : "";
    expect(r.stderr).toContain(`Plan "Tidy up" waits for approval and there is no terminal to ask`);
    expect(r.stderr).toContain(`'arbor approve ${planId}'`);
    expect(events.filter((e) => e.type === "plan_updated")).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "error", code: "needs_answer" });
    expect(e2e.server!.callCount).toBe(1);

    const sessionId = events[0]!.session_id;
    const modelArgs = ["--model", FAKE_MODEL, "--base-url", e2e.server!.baseURL, "--cwd", e2e.workspace];
    const wrong = await e2e.cli(["approve", `${sessionId}:00000000`, ...modelArgs]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/has no plan .*:00000000 on its current branch/);
    const approved = await e2e.cli(["approve", sessionId.slice(0, 8), "--json", ...modelArgs]);
    expect(approved.code, approved.stderr).toBe(0);
    const after = runEvents(approved);
    expect(after.filter((e) => e.type === "plan_updated").map((e) => `${e.step_id}:${e.status}`)).toContain("1:running");
    expect(after.at(-1)).toMatchObject({ type: "done", session_id: sessionId, text: "The workspace is already tidy." });
    const again = await e2e.cli(["approve", sessionId, ...modelArgs]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not waiting for approval/);
  });

  it("'arbor approve --reject --reason' refuses the waiting plan: no step runs, and the reason is recorded", async () => {
    const { r, events } = await run([[PLAN]]);
    expect(r.code, r.stderr).toBe(3);
    const sessionId = events[0]!.session_id;
    const modelArgs = ["--model", FAKE_MODEL, "--base-url", e2e.server!.baseURL, "--cwd", e2e.workspace];
    const reasonAlone = await e2e.cli(["approve", sessionId, "--reason", "too risky", ...modelArgs]);
    expect(reasonAlone.code).toBe(2);
    expect(reasonAlone.stderr).toContain("--reason goes with --reject");
    const rejected = await e2e.cli(["approve", sessionId, "--reject", "--reason", "too risky", "--json", ...modelArgs]);
    expect(rejected.code, rejected.stderr).toBe(0);
    const after = runEvents(rejected);
    expect(after.filter((e) => e.type === "plan_updated")).toEqual([]);
    expect(e2e.server!.callCount).toBe(1);
    const shown = await e2e.cli(["sessions", "show", sessionId, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("too risky");
    const again = await e2e.cli(["approve", sessionId, ...modelArgs]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not waiting for approval/);
  });
});

describe("the plan approval handler", () => {
  const request = { planId: "s1:plan-1", title: "Tidy up", steps: [{ id: 1, title: "Look" }] };
  const signal = new AbortController().signal;

  it("asks at the terminal until the answer is clear, with an optional reason for a no", async () => {
    const answers = ["hm", "n", "too risky"];
    const questions: string[] = [];
    const io = {
      ...captureIo(),
      prompt: async (q: string) => {
        questions.push(q);
        return answers.shift();
      },
    };
    const handler = createPlanApprovalHandler({ yes: false, io, view: createJsonView(io), onNobody: () => {} });
    expect(await handler(request, signal)).toEqual({ approved: false, reason: "too risky" });
    expect(questions).toEqual([
      '? run the plan "Tidy up" (1 step)? [y]es / [n]o: ',
      '? run the plan "Tidy up" (1 step)? [y]es / [n]o: ',
      "  why not? (optional): ",
    ]);
    answers.push("yes");
    expect(await handler(request, signal)).toEqual({ approved: true });
  });
});
