import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { latestPlanRecord, PLAN_ENTRY_TYPE } from "../../src/plan/plan-record.js";
import { createRuntime } from "../../src/runtime.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { collect, harness } from "../loop/harness.js";
import { checkRepoPlanner, checkRepoSteps, errorCode, ofType, planConfig, planModel, stepUpdates, until } from "./helpers.js";

const steps = checkRepoSteps;
const planner = checkRepoPlanner;

/** A run of the repo-checking plan with approval required, read up to its approval request. */
async function planAwaitingApproval() {
  const work = steps();
  const { runtime, store } = await harness({
    config: planConfig({ requireApproval: true }),
    model: planModel({ main: planner(), steps: work }),
  });
  const handle = runtime.runs.run({ prompt: "check the repo" });
  const played = await until(handle, (e) => e.type === "plan_approval_request");
  const request = ofType(played.events, "plan_approval_request")[0]!;
  return { work, runtime, store, handle, played, request };
}

describe("plan mode: the approval gate", () => {
  it("waits for approval, then runs the plan", async () => {
    const { work, runtime, store, handle, played, request } = await planAwaitingApproval();
    expect(request).toMatchObject({
      title: "Check the repo",
      steps: [{ id: 1, title: "Read the code", status: "pending" }, { id: 2 }],
    });
    expect(runtime.asks.pendingPlanApprovals(handle.sessionId).map((r) => r.planId)).toEqual([request.plan_id]);
    // Nothing ran before the answer, and the request is in the session (it outlives this process).
    expect(work["Read the code"].callCount).toBe(0);
    expect(latestPlanRecord(await store.getActivePath(handle.sessionId))).toMatchObject({ status: "awaiting_approval" });

    const answered = await runtime.asks.approvePlan(request.plan_id, true);
    expect(answered).toEqual({ planId: request.plan_id, sessionId: handle.sessionId, approved: true });
    const events = await played.rest();
    const result = await handle.result;
    expect(result.status).toBe("done");
    const order = events.map((e) => e.type);
    expect(order.indexOf("plan_created")).toBeLessThan(order.indexOf("plan_approval_request"));
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
    expect(runtime.asks.pendingPlanApprovals()).toEqual([]);
    const records = (await store.getActivePath(handle.sessionId)).flatMap((e) =>
      e.type === "custom" && e.customType === PLAN_ENTRY_TYPE ? [(e.data as { status: string }).status] : [],
    );
    // Phase 2 records where it stands as it starts and as each step starts and ends, so a resume finds its step.
    expect(records).toEqual([
      "awaiting_approval",
      "approved",
      "running",
      "running",
      "running",
      "running",
      "running",
      "completed",
    ]);
    // Answered already: a second answer is refused.
    expect(await errorCode(runtime.asks.approvePlan(request.plan_id, false))).toBe("plan_not_pending");
  });

  it("a rejection ends the run with a message and runs nothing", async () => {
    const { work, runtime, store, handle, played, request } = await planAwaitingApproval();
    await runtime.asks.approvePlan(request.plan_id, false, "not on a Friday");
    const events = await played.rest();
    const result = await handle.result;
    expect(result).toMatchObject({ status: "done", stopReason: "plan_rejected" });
    expect(result.text).toBe('The plan "Check the repo" was not approved: not on a Friday. None of its steps were run.');
    expect(ofType(events, "token").at(-1)?.content).toBe(result.text);
    expect(stepUpdates(events)).toEqual([]);
    expect(work["Read the code"].callCount + work["Run the tests"].callCount).toBe(0);
    const path = await store.getActivePath(handle.sessionId);
    expect(latestPlanRecord(path)).toMatchObject({ status: "rejected", reason: "not on a Friday" });
    expect(events.at(-1)?.type).toBe("done");
  });

  it("a handler answers when someone is at hand (a terminal, --yes)", async () => {
    const seen: string[] = [];
    const { runtime } = await harness({
      config: planConfig({ requireApproval: true }),
      model: planModel({ main: planner(), steps: steps() }),
      onPlanApproval: (request) => {
        seen.push(request.title);
        return { approved: true };
      },
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "check the repo" }));
    expect(result.status).toBe("done");
    expect(seen).toEqual(["Check the repo"]);
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
  });

  it("an approval after the waiting run is gone (a restart) resumes phase 2 in a new run", async () => {
    const { runtime, store, cwd, home } = await harness({
      config: planConfig({ requireApproval: true }),
      model: planModel({ main: planner(), steps: steps() }),
    });
    const handle = runtime.runs.run({ prompt: "check the repo" });
    const played = await until(handle, (e) => e.type === "plan_approval_request");
    const planId = ofType(played.events, "plan_approval_request")[0]!.plan_id;
    // The process goes away: its runs are aborted, the request stays in the session.
    await runtime.close();
    await played.rest();
    expect((await handle.result).status).toBe("aborted");

    const work = steps();
    const restarted = createRuntime({
      store,
      cwd,
      arborHome: home,
      env: {},
      blobs: new MemoryBlobStore(),
      config: planConfig({ requireApproval: true }),
      model: planModel({ main: scriptedModel([]), steps: work }),
      clock: { now: () => Date.now(), sleep: async () => {} },
    });
    try {
      expect(restarted.asks.pendingPlanApprovals()).toEqual([]);
      const answered = await restarted.asks.approvePlan(planId, true, "go ahead");
      expect(answered).toMatchObject({ planId, sessionId: handle.sessionId, approved: true });
      const { events, result } = await collect(answered.run!);
      expect(result).toMatchObject({ sessionId: handle.sessionId, status: "done", stopReason: "finished" });
      expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
      expect(work["Run the tests"].callCount).toBe(1);
      const path = await store.getActivePath(handle.sessionId);
      expect(latestPlanRecord(path)).toMatchObject({ status: "completed" });
      // No new user message: the resumed run continues the session where the plan left it.
      expect(path.filter((e) => e.type === "message" && e.message.role === "user")).toHaveLength(1);
      expect(await errorCode(restarted.asks.approvePlan(planId, true))).toBe("plan_not_pending");
    } finally {
      await restarted.close();
    }
    // Both runs recorded themselves for the trace's watchers: the one the restart cut off, and the one
    // the approval resumed, with nothing wired by whoever started them.
    const ends = (await store.listEvents(handle.sessionId)).flatMap((r) => {
      const data = r.data as { kind?: string; status?: string };
      return r.type === "trace_started" || r.type === "trace_completed" ? [`${r.type}:${data.kind ?? data.status}`] : [];
    });
    expect(ends).toEqual(["trace_started:prompt", "trace_completed:aborted", "trace_started:resume", "trace_completed:done"]);
  });

  it("refuses plan ids that are malformed or name no waiting plan", async () => {
    const { runtime } = await harness({ model: scriptedModel([]) });
    expect(await errorCode(runtime.asks.approvePlan("nope", true))).toBe("invalid_input");
    expect(await errorCode(runtime.asks.approvePlan("0b6c3f0e-0000-4000-8000-000000000000:deadbeef", true))).toBe(
      "plan_not_found",
    );
    const { result } = await collect(runtime.runs.run({ prompt: "hi", model: scriptedModel([[text("hello")]]) }));
    expect(await errorCode(runtime.asks.approvePlan(`${result.sessionId}:deadbeef`, true))).toBe("plan_not_found");
  });
});
