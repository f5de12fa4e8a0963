import type { LanguageModelV4 } from "@ai-sdk/provider";
import { error, hang, scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { goalTreeOnPath } from "../../src/goal/goal-path.js";
import { goalTreeProblems } from "../../src/goal/invariants.js";
import { latestPlanRecord } from "../../src/plan/plan-record.js";
import { collect, harness, types } from "../loop/harness.js";
import { entriesOf, ofType, planConfig, planModel, stepUpdates } from "./helpers.js";

const STEPS = ["Read the code", { title: "Fix the bug", description: "in parser.ts" }, "Run the tests"];
const [READ, FIX, TEST] = ["Read the code", "Fix the bug: in parser.ts", "Run the tests"];

function planner() {
  return scriptedModel([[text("This needs a plan."), toolCall("plan_create", { title: "Ship the fix", steps: STEPS })]]);
}

const answer = (reply: string) => scriptedModel([[text(reply)]]);

/** The parser-fixing plan run to its end, its steps answered by `steps` and replanned by `replanner`. */
async function fixTheParser(steps: Record<string, LanguageModelV4>, replanner: LanguageModelV4) {
  const { runtime } = await harness({ model: planModel({ main: planner(), steps, replanner }) });
  return collect(runtime.runs.run({ prompt: "fix the parser" }));
}

describe("plan mode: phase 1 and phase 2", () => {
  it("stops phase 1 at plan_create, runs each step as an executor sub-trace and records the plan as goals", async () => {
    const main = planner();
    const long = `parser.ts has three functions. ${"x".repeat(1500)}`;
    const read = answer(long);
    const fix = answer("Fixed the off-by-one in parse().");
    const test = answer("All 12 tests pass.");
    const replanner = scriptedModel([]);
    const { runtime, store } = await harness({
      model: planModel({ main, steps: { [READ]: read, [FIX]: fix, [TEST]: test }, replanner }),
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "fix the parser" }));
    expect(result).toMatchObject({ status: "done", stopReason: "finished" });
    expect(main.callCount).toBe(1);
    // Every step succeeded: the heuristics skip the replanner each time.
    expect(replanner.callCount).toBe(0);

    const created = ofType(events, "plan_created")[0]!;
    expect(created.plan.title).toBe("Ship the fix");
    expect(created.plan.steps).toEqual([
      { id: 1, title: READ, status: "pending" },
      { id: 2, title: FIX, status: "pending" },
      { id: 3, title: TEST, status: "pending" },
    ]);
    expect(created.plan.plan_id).toBe(`${result.sessionId}:${created.plan.plan_id.slice(-8)}`);
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed", "3:running", "3:completed"]);
    expect(types(events).at(-1)).toBe("done");
    // The executors' work streams live in the parent's run, each model call saying which step it works on.
    expect(ofType(events, "token").map((e) => e.content)).toContain("All 12 tests pass.");
    expect(
      ofType(events, "llm_start")
        .filter((e) => e.node === "executor")
        .map((e) => e.motivation),
    ).toEqual(["Executing step 1", "Executing step 2", "Executing step 3"]);
    expect(result.text).toContain('Plan "Ship the fix" finished: 3 of 3 steps completed.');

    // The executor prompt: plan title, current step, earlier results cut to 1,000 characters.
    const fixPrompt = JSON.stringify(fix.calls[0]!.prompt);
    expect(fixPrompt).toContain("Plan: Ship the fix");
    expect(fixPrompt).toContain(`Step 2 of 3: ${FIX}`);
    expect(fixPrompt).toContain(`${long.slice(0, 1000)}...`);
    expect(fixPrompt).not.toContain(long.slice(0, 1001));
    const testPrompt = JSON.stringify(test.calls[0]!.prompt);
    expect(testPrompt).toContain("Fixed the off-by-one in parse().");
    // Executor tools: everything but plan_create.
    const tools = (fix.calls[0]!.options.tools ?? []).map((t) => t.name);
    expect(tools).toContain("plan_update");
    expect(tools).toContain("bash");
    expect(tools).not.toContain("plan_create");
    expect((main.calls[0]!.options.tools ?? []).map((t) => t.name)).toEqual(
      expect.arrayContaining(["plan_create", "plan_update"]),
    );

    const subs = (await store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions;
    expect(subs).toHaveLength(3);
    for (const sub of subs) {
      expect(sub.id).toMatch(/@plan_step-\d{14}-\d{3}$/);
      expect(sub).toMatchObject({ agentType: "plan_step", parentSessionId: result.sessionId, status: "completed" });
    }
    expect(subs.map((s) => s.task).sort()).toEqual([FIX, READ, TEST].sort());

    const path = await store.getActivePath(result.sessionId);
    const tree = goalTreeOnPath(path)!;
    expect(goalTreeProblems(tree)).toEqual([]);
    const planGoal = tree.goals.find((g) => g.description === "Ship the fix")!;
    expect(planGoal.status).toBe("completed");
    const stepGoals = tree.goals.filter((g) => g.parentId === planGoal.id);
    expect(stepGoals.map((g) => g.description)).toEqual([READ, FIX, TEST]);
    for (const goal of stepGoals) {
      expect(goal).toMatchObject({ status: "completed", type: "agent_call", agentCallMode: "plan_step" });
      expect(goal.subTraceIds).toHaveLength(1);
      expect(Object.values(goal.subTraceMetadata ?? {})[0]).toMatchObject({ status: "completed" });
    }
    expect(stepGoals[2]!.summary).toBe("All 12 tests pass.");
    const batches = entriesOf(path, "subagent_batch");
    expect(batches.map((b) => b.mode)).toEqual(["plan_step", "plan_step", "plan_step"]);
    expect(batches.map((b) => b.goalId)).toEqual(stepGoals.map((g) => g.id));
    expect(entriesOf(path, "subagent_result").map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(latestPlanRecord(path)).toMatchObject({ status: "completed" });
    const last = path.at(-1)!;
    expect(last.type === "message" && last.message.role === "assistant").toBe(true);
  });

  it("continue: a step that reports [ERROR] consults the replanner, which keeps the plan", async () => {
    const replanner = scriptedModel([
      [toolCall("replan", { action: "continue", response: "", revised_steps: [], reason: "step 2 covers it" })],
    ]);
    const fix = answer("Fixed.");
    const test = answer("Tests pass.");
    const { events, result } = await fixTheParser(
      { [READ]: answer("[ERROR] could not open parser.ts"), [FIX]: fix, [TEST]: test },
      replanner,
    );
    expect(result.status).toBe("done");
    expect(replanner.callCount).toBe(1);
    const prompt = JSON.stringify(replanner.calls[0]!.prompt);
    expect(prompt).toContain("Replan: Ship the fix");
    expect(prompt).toContain("[ERROR] could not open parser.ts");
    expect(replanner.calls[0]!.options.toolChoice).toEqual({ type: "tool", toolName: "replan" });
    expect(ofType(events, "llm_start").some((e) => e.node === "replanner")).toBe(true);
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed", "3:running", "3:completed"]);
    expect(fix.callCount + test.callCount).toBe(2);
  });

  it("revise: the remaining steps are replaced and plan_revised says so", async () => {
    const replanner = scriptedModel([
      [
        toolCall("replan", {
          action: "revise",
          response: "",
          revised_steps: ["Install the parser", { title: "Check the install" }],
          reason: "the parser is missing",
        }),
      ],
    ]);
    const fix = scriptedModel([]);
    const test = scriptedModel([]);
    const { runtime, store } = await harness({
      model: planModel({
        main: planner(),
        steps: {
          [READ]: scriptedModel([[error(400, { message: "bad request" })]]),
          [FIX]: fix,
          [TEST]: test,
          "Install the parser": answer("Installed."),
          "Check the install": answer("It is there."),
        },
        replanner,
      }),
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "fix the parser" }));
    expect(result.status).toBe("done");
    const [revised] = ofType(events, "plan_revised");
    expect(revised).toMatchObject({
      keep_completed: 1,
      reason: "the parser is missing",
      revised_steps: [
        { id: 4, title: "Install the parser", status: "pending" },
        { id: 5, title: "Check the install", status: "pending" },
      ],
    });
    expect(stepUpdates(events)).toEqual(["1:running", "1:failed", "4:running", "4:completed", "5:running", "5:completed"]);
    expect(fix.callCount + test.callCount).toBe(0);
    expect(result.text).toContain("2 of 3 steps completed, 1 failed");
    const tree = goalTreeOnPath(await store.getActivePath(result.sessionId))!;
    expect(goalTreeProblems(tree)).toEqual([]);
    const byName = new Map(tree.goals.map((g) => [g.description, g]));
    expect(byName.get(FIX)).toMatchObject({ status: "abandoned", summary: "Replaced by a revision: the parser is missing" });
    expect(byName.get(READ)?.status).toBe("abandoned");
    expect(byName.get("Check the install")?.status).toBe("completed");
  });

  it("finish: the remaining steps are marked done and the replanner's response is the answer", async () => {
    const replanner = scriptedModel([
      [
        toolCall("replan", {
          action: "finish",
          response: "The bug was a typo; fixed while reading.",
          revised_steps: [],
          reason: "done",
        }),
      ],
    ]);
    const fix = scriptedModel([]);
    const { events, result } = await fixTheParser(
      { [READ]: answer("Fixed the typo on the way. [ERROR] the linter is not installed"), [FIX]: fix, [TEST]: fix },
      replanner,
    );
    expect(result).toMatchObject({ status: "done", text: "The bug was a typo; fixed while reading." });
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:completed", "3:completed"]);
    expect(fix.callCount).toBe(0);
    expect(ofType(events, "token").at(-1)?.content).toBe("The bug was a typo; fixed while reading.");
  });

  it.each([
    ["the call fails", [error(500, { message: "overloaded" })]],
    ["the answer is not a decision", [text("I think it should probably continue.")]],
    ["the decision is invalid", [toolCall("replan", { action: "panic" })]],
  ])("a replanner failure means continue (%s)", async (_name, step) => {
    const replanner = scriptedModel([step]);
    const { events, result } = await fixTheParser(
      { [READ]: answer("[ERROR] partial read"), [FIX]: answer("Fixed."), [TEST]: answer("Pass.") },
      replanner,
    );
    expect(result.status).toBe("done");
    expect(replanner.callCount).toBe(1);
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed", "3:running", "3:completed"]);
    expect(ofType(events, "llm_end").find((e) => e.node === "replanner")?.output).toMatch(/replanner failed, continuing/);
  });

  it("skips the replanner when one step remains, even after a failure, and with PLAN_REVISION_ENABLED off", async () => {
    for (const config of [planConfig({}), planConfig({ revisionEnabled: false })]) {
      const replanner = scriptedModel([]);
      const twoSteps = scriptedModel([[toolCall("plan_create", { title: "Two", steps: [READ, TEST] })]]);
      const { runtime } = await harness({
        config,
        model: planModel({
          main: twoSteps,
          steps: { [READ]: answer("[ERROR] nothing to read"), [TEST]: answer("ok") },
          replanner,
        }),
      });
      const { events } = await collect(runtime.runs.run({ prompt: "go" }));
      expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
      expect(replanner.callCount).toBe(0);
    }
  });

  it("a failed step is marked failed and the plan goes on; an executor can fail its own step with plan_update", async () => {
    const { runtime, store } = await harness({
      model: planModel({
        main: planner(),
        steps: {
          [READ]: scriptedModel([[error(400, { message: "bad request" })]]),
          [FIX]: scriptedModel([
            [toolCall("plan_update", { step_id: 2, status: "failed", note: "no write access" })],
            [text("Could not fix it.")],
          ]),
          [TEST]: answer("Nothing to test."),
        },
        // After step 1 two steps remain: the replanner is asked and says continue.
        replanner: scriptedModel([[toolCall("replan", { action: "continue", reason: "try anyway" })]]),
      }),
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "fix the parser" }));
    expect(result.status).toBe("done");
    expect(stepUpdates(events)).toEqual(["1:running", "1:failed", "2:running", "2:failed", "3:running", "3:completed"]);
    expect(result.text).toContain("1 of 3 steps completed, 2 failed");
    const path = await store.getActivePath(result.sessionId);
    const results = entriesOf(path, "subagent_result");
    expect(results.map((r) => r.status)).toEqual(["failed", "completed", "completed"]);
    const tree = goalTreeOnPath(path)!;
    const fixGoal = tree.goals.find((g) => g.description === FIX)!;
    expect(fixGoal.status).toBe("abandoned");
    expect(fixGoal.summary).toContain("no write access");
    expect(latestPlanRecord(path)?.plan.steps.map((s) => s.status)).toEqual(["failed", "failed", "completed"]);
  });

  it("runs at most PLAN_MAX_STEPS steps; the rest are skipped", async () => {
    const test = scriptedModel([]);
    const { runtime } = await harness({
      config: planConfig({ maxSteps: 2 }),
      model: planModel({ main: planner(), steps: { [READ]: answer("read"), [FIX]: answer("fixed"), [TEST]: test } }),
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "fix the parser" }));
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed", "3:skipped"]);
    expect(test.callCount).toBe(0);
    expect(result.text).toContain("Stopped after 2 steps (PLAN_MAX_STEPS).");
  });

  it("an abort during a step ends the run aborted with the step failed and the tree sound", async () => {
    const fix = scriptedModel([]);
    const { runtime, store } = await harness({
      model: planModel({ main: planner(), steps: { [READ]: scriptedModel([[hang()]]), [FIX]: fix, [TEST]: fix } }),
    });
    const handle = runtime.runs.run({ prompt: "fix the parser" });
    const events = [];
    for await (const event of handle) {
      events.push(event);
      // Abort once the step's executor is waiting on its model.
      if (event.type === "llm_start" && event.node === "executor") handle.abort();
    }
    const result = await handle.result;
    expect(result.status).toBe("aborted");
    expect(stepUpdates(events)).toEqual(["1:running", "1:failed"]);
    expect(fix.callCount).toBe(0);
    const path = await store.getActivePath(result.sessionId);
    expect(entriesOf(path, "subagent_result").map((r) => r.status)).toEqual(["aborted"]);
    expect(latestPlanRecord(path)).toMatchObject({ status: "aborted" });
    const tree = goalTreeOnPath(path)!;
    expect(goalTreeProblems(tree)).toEqual([]);
    expect(tree.goals.filter((g) => g.status === "pending" || g.status === "in_progress")).toEqual([]);
    const subs = (await store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions;
    expect(subs.map((s) => s.status)).toEqual(["aborted"]);
  });

  it("offers no plan tools with PLAN_ENABLED off, nor to explore and delegate sub-traces", async () => {
    const off = scriptedModel([[text("ok")]]);
    const { runtime } = await harness({ config: planConfig({ enabled: false }), model: off });
    await collect(runtime.runs.run({ prompt: "hi" }));
    const names = (off.calls[0]!.options.tools ?? []).map((t) => t.name);
    expect(names).toContain("goal");
    expect(names).not.toContain("plan_create");
    expect(names).not.toContain("plan_update");

    // One script plays the main run (calls 0 and 2) and the delegate's sub-run (call 1).
    const main = scriptedModel([[toolCall("delegate", { task: "look around" })], [text("looked")], [text("done")]]);
    const { runtime: second } = await harness({ model: main });
    const { result } = await collect(second.runs.run({ prompt: "delegate it" }));
    expect(result.status).toBe("done");
    const delegated = main.calls[1]!;
    const delegateTools = (delegated.options.tools ?? []).map((t) => t.name);
    expect(delegateTools).not.toContain("plan_create");
    expect(delegateTools).not.toContain("plan_update");
  });
});
