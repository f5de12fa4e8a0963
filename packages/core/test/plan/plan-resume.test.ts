import { join } from "node:path";
import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { subTraceId } from "../../src/model/ids.js";
import { executorPrompt } from "../../src/plan/executor-prompt.js";
import { latestPlanRecord, PLAN_ENTRY_TYPE } from "../../src/plan/plan-record.js";
import type { Plan } from "../../src/plan/plan-schema.js";
import { EXECUTOR_CONTEXT } from "../../src/plan/step-runner.js";
import { openStore } from "../../src/store/open.js";
import { answerMessage, toolCallPart, toolResultMessage, userMessage } from "../helpers/journal-messages.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { ofType, planConfig, planModel, stepUpdates } from "./helpers.js";

/**
 * A plan-mode run killed in phase 2 or while its plan waits for approval, as a kill -9 leaves it
 * (written by hand: the session and the running step's executor stored running, nobody holding
 * them), then resumed.
 */

const [READ, FIX, TEST] = ["Read the code", "Fix the bug", "Run the tests"];
const user = userMessage;
const toolAnswer = (calls: { id: string; name: string; input: unknown }[]) =>
  answerMessage(calls.map((c) => toolCallPart(c.id, c.name, c.input)));
const toolResult = toolResultMessage;

/** A session whose plan (made by plan_create) stands as `plan` says, recorded with `status`. */
async function plannedSession(status: "running" | "awaiting_approval", steps: (parent: string) => Plan["steps"]) {
  const store = await openStore(join(tempDir(), "store"));
  const { id: parent } = await store.createSession({ status: "running", agentId: "build" });
  await store.appendMessage(parent, user("fix the parser"));
  await store.appendMessage(
    parent,
    toolAnswer([{ id: "pc1", name: "plan_create", input: { title: "Ship the fix", steps: [READ, FIX, TEST] } }]),
  );
  await store.appendMessage(parent, toolResult("pc1", "plan_create", 'Plan "Ship the fix" created with 3 steps.'));
  const plan: Plan = { planId: `${parent}:0123abcd`, title: "Ship the fix", steps: steps(parent), nextStepId: 4 };
  await store.appendEntry(parent, { type: "custom", customType: PLAN_ENTRY_TYPE, data: { plan, status } });
  return { store, parent, plan };
}

describe("plan mode: a run cut off with its plan is resumed where the plan was", () => {
  it("a plan killed in phase 2 at step 2 resumes at step 2: step 1 stays done, step 2's executor continues", async () => {
    const at = new Date("2026-12-04T12:00:00Z");
    const { store, parent } = await plannedSession("running", (p) => [
      {
        id: 1,
        title: READ,
        status: "completed",
        subTraceId: subTraceId(p, "plan_step", at, 1),
        result: "parser.ts has 3 functions.",
      },
      { id: 2, title: FIX, status: "running", subTraceId: subTraceId(p, "plan_step", at, 2) },
      { id: 3, title: TEST, status: "pending" },
    ]);
    const executor = subTraceId(parent, "plan_step", at, 2);
    await store.appendEntry(parent, {
      type: "subagent_batch",
      batchId: "batch_step2",
      mode: "plan_step",
      tasks: [{ task: FIX, subSessionId: executor }],
    });
    await store.createSession({
      id: executor,
      agentId: "general",
      mode: "agent",
      agentType: "plan_step",
      status: "running",
      task: FIX,
      parentSessionId: parent,
      context: EXECUTOR_CONTEXT,
    });
    const prompt = executorPrompt({
      title: "Ship the fix",
      step: { id: 2, title: FIX },
      position: 2,
      total: 3,
      past: [{ title: READ, status: "completed", result: "parser.ts has 3 functions." }],
    });
    await store.appendMessage(executor, user(prompt));
    await store.appendMessage(executor, toolAnswer([{ id: "l1", name: "list", input: {} }]));
    await store.appendMessage(executor, toolResult("l1", "list", "parser.ts"));
    expect((await store.getSession(parent))?.status).toBe("interrupted");

    const main = scriptedModel([]);
    const read = scriptedModel([]);
    const fix = scriptedModel([[text("Fixed the off-by-one in parse().")]]);
    const test = scriptedModel([[text("All 12 tests pass.")]]);
    const { runtime } = await harness({
      store,
      config: planConfig({}),
      model: planModel({ main, steps: { [READ]: read, [FIX]: fix, [TEST]: test } }),
    });
    const { events, result } = await collect(runtime.runs.resume(parent));
    expect(result).toMatchObject({ status: "done", stopReason: "finished" });
    expect(result.text).toContain('Plan "Ship the fix" finished: 3 of 3 steps completed.');
    // Phase 1 is not run again, nor step 1; step 2's executor went on from its journal.
    expect(main.callCount).toBe(0);
    expect(read.callCount).toBe(0);
    expect(fix.callCount).toBe(1);
    expect(JSON.stringify(fix.calls[0]!.prompt)).toContain("parser.ts");
    const executorUsers = (await store.getActivePath(executor)).filter((e) => e.type === "message" && e.message.role === "user");
    expect(executorUsers).toHaveLength(1);
    expect(test.callCount).toBe(1);
    expect(JSON.stringify(test.calls[0]!.prompt)).toContain("Fixed the off-by-one in parse().");
    expect(stepUpdates(events)).toEqual(["2:running", "2:completed", "3:running", "3:completed"]);
    expect((await store.getSession(executor))?.status).toBe("completed");

    const path = await store.getActivePath(parent);
    const record = latestPlanRecord(path);
    expect(record?.status).toBe("completed");
    expect(record?.plan.steps.map((s) => `${s.id}:${s.status}`)).toEqual(["1:completed", "2:completed", "3:completed"]);
    // Step 2's batch is the one its dead process recorded; its result is recorded once.
    const results = path.filter((e) => e.type === "subagent_result" && e.subSessionId === executor);
    expect(results).toHaveLength(1);
    expect(path.filter((e) => e.type === "subagent_batch" && e.tasks.some((t) => t.subSessionId === executor))).toHaveLength(1);
  });

  it("a plan killed while awaiting approval waits again through the ask API, then runs its steps", async () => {
    const { store, parent, plan } = await plannedSession("awaiting_approval", () => [
      { id: 1, title: READ, status: "pending" },
      { id: 2, title: FIX, status: "pending" },
      { id: 3, title: TEST, status: "pending" },
    ]);
    const main = scriptedModel([]);
    const steps = {
      [READ]: scriptedModel([[text("Read.")]]),
      [FIX]: scriptedModel([[text("Fixed.")]]),
      [TEST]: scriptedModel([[text("Pass.")]]),
    };
    const { runtime } = await harness({
      store,
      config: planConfig({ requireApproval: true }),
      model: planModel({ main, steps }),
    });
    const handle = runtime.runs.resume(parent);
    const events = [];
    for await (const event of handle) {
      events.push(event);
      if (event.type === "plan_approval_request") {
        expect(event.plan_id).toBe(plan.planId);
        expect(runtime.asks.pendingPlanApprovals(parent).map((r) => r.planId)).toEqual([plan.planId]);
        await runtime.asks.approvePlan(plan.planId, true);
      }
    }
    const result = await handle.result;
    expect(result).toMatchObject({ status: "done", stopReason: "finished" });
    expect(main.callCount).toBe(0);
    expect(ofType(events, "plan_approval_request")).toHaveLength(1);
    expect(result.text).toContain("3 of 3 steps completed");
  });
});
