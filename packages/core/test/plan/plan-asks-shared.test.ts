import { join } from "node:path";
import { scriptedModel } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { RunHandle } from "../../src/loop/run-types.js";
import { latestPlanRecord, PLAN_ENTRY_TYPE } from "../../src/plan/plan-record.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { inNamespace } from "../helpers/sql-databases.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { askThenKill } from "../loop/killed-asker.js";
import { checkRepoPlanner, checkRepoSteps, errorCode, ofType, planConfig, planModel, stepUpdates, until } from "./helpers.js";

/**
 * Plans waiting for approval are asks in the store, like permission asks: every runtime over the
 * store (another process, another machine) lists them and answers them, exactly once, and the run
 * that waits goes on wherever it runs, also after restarts.
 */

const DAY = 24 * 3_600_000;
const steps = checkRepoSteps;
const planner = checkRepoPlanner;

/** Plays a run's events up to its plan_approval_request; `rest` plays the others. */
async function untilAsked(handle: RunHandle) {
  const played = await until(handle, (e) => e.type === "plan_approval_request");
  const request = ofType(played.events, "plan_approval_request")[0];
  if (!request) throw new Error(`the run ended without asking: ${JSON.stringify(played.events)}`);
  return { planId: request.plan_id, rest: played.rest };
}

/** The statuses the session recorded its plan with, in order (a status recorded again, as each step's change is, once). */
async function planStatuses(store: Store, sessionId: string): Promise<string[]> {
  const all = (await store.getActivePath(sessionId)).flatMap((e) =>
    e.type === "custom" && e.customType === PLAN_ENTRY_TYPE ? [(e.data as { status: string }).status] : [],
  );
  return all.filter((s, i) => s !== all[i - 1]);
}

async function approvedElsewhere(open: () => Promise<Store>) {
  const work = steps();
  const config = planConfig({ requireApproval: true });
  const a = await harness({ store: await open(), config, model: planModel({ main: planner(), steps: work }), askPollMs: 25 });
  const b = await harness({ store: await open(), cwd: a.cwd, arborHome: a.home, config, model: scriptedModel([]) });
  const handle = a.runtime.runs.run({ prompt: "check the repo" });
  const asked = await untilAsked(handle);

  // Runtime B has no run waiting on the plan, yet lists it and answers it.
  expect(b.runtime.asks.pendingPlanApprovals()).toEqual([]);
  const listed = await b.runtime.asks.listPlans();
  expect(listed).toEqual([
    expect.objectContaining({ planId: asked.planId, sessionId: handle.sessionId, title: "Check the repo" }),
  ]);
  expect(listed[0]!.askId).toMatch(/^plan_/);
  expect((await b.runtime.asks.listPending()).map((p) => `${p.kind}:${p.id}`)).toEqual([`plan:${listed[0]!.askId}`]);
  const answered = await b.runtime.asks.approvePlan(asked.planId, true);
  // A's run waits on it: no new run is started here.
  expect(answered.run).toBeUndefined();
  // A second answer, from either runtime, is refused and changes nothing.
  expect(await errorCode(a.runtime.asks.approvePlan(asked.planId, false, "no"))).toBe("plan_not_pending");
  expect(await errorCode(b.runtime.asks.approvePlan(asked.planId, true))).toBe("plan_not_pending");

  const events = await asked.rest();
  const result = await handle.result;
  expect(result).toMatchObject({ status: "done", stopReason: "finished" });
  expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
  expect(work["Run the tests"].callCount).toBe(1);
  expect(await planStatuses(a.store, handle.sessionId)).toEqual(["awaiting_approval", "approved", "running", "completed"]);
  expect(await b.runtime.asks.listPlans()).toEqual([]);
  expect(await a.store.listAsks({ sessionId: handle.sessionId })).toHaveLength(1);
}

describe("plan approvals shared through the store", () => {
  it("file store: a plan of runtime A is listed and approved through runtime B, and A's run goes on once", async () => {
    const dir = join(tempDir(), "store");
    await approvedElsewhere(() => openStore(dir));
  });

  it("PostgreSQL: a plan of runtime A is listed and approved through runtime B, and A's run goes on once", async () => {
    await inNamespace("postgres", (spec) => approvedElsewhere(() => openStore(spec)));
  });

  it("an approval a week later, after three restarts, resolves once and the run carries on where it stopped", async () => {
    const dir = join(tempDir(), "store");
    let now = Date.parse("2026-12-01T09:00:00Z");
    const clock = { now: () => now, sleep: async () => {} };
    const config = planConfig({ requireApproval: true });
    const first = await harness({ store: await openStore(dir), config, clock, askTtlMs: 30 * DAY, askPollMs: 25 });
    const handle = first.runtime.runs.run({ prompt: "check the repo", model: planModel({ main: planner(), steps: steps() }) });
    const asked = await untilAsked(handle);
    await first.runtime.close();
    await asked.rest();
    expect((await handle.result).status).toBe("aborted");

    // Three restarts: each runtime lists the plan, none answers it.
    for (let day = 1; day <= 3; day++) {
      now += 2 * DAY;
      const restarted = await harness({ store: await openStore(dir), cwd: first.cwd, arborHome: first.home, config, clock });
      expect((await restarted.runtime.asks.listPlans()).map((p) => p.planId)).toEqual([asked.planId]);
      await restarted.runtime.close();
    }
    now += DAY;
    const work = steps();
    const last = await harness({
      store: await openStore(dir),
      cwd: first.cwd,
      arborHome: first.home,
      config,
      clock,
      model: planModel({ main: scriptedModel([]), steps: work }),
    });
    const other = await harness({ store: await openStore(dir), cwd: first.cwd, arborHome: first.home, config, clock });
    const answered = await last.runtime.asks.approvePlan(asked.planId, true, "go ahead");
    expect(answered.run).toBeDefined();
    expect(await errorCode(other.runtime.asks.approvePlan(asked.planId, true))).toBe("plan_not_pending");
    const { events, result } = await collect(answered.run!);
    expect(result).toMatchObject({ sessionId: handle.sessionId, status: "done", stopReason: "finished" });
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
    expect(work["Read the code"].callCount).toBe(1);
    expect(work["Run the tests"].callCount).toBe(1);
    const [ask] = await last.store.listAsks({ sessionId: handle.sessionId });
    expect(ask?.answer).toMatchObject({ value: { approved: true, reason: "go ahead" }, at: new Date(now).toISOString() });
    expect(await planStatuses(last.store, handle.sessionId)).toEqual(["awaiting_approval", "approved", "running", "completed"]);
    expect(latestPlanRecord(await last.store.getActivePath(handle.sessionId))?.status).toBe("completed");
    expect(await other.runtime.asks.listPlans()).toEqual([]);
  });

  it("a run that takes over a killed process's session waits on the same ask, and takes an answer given through another runtime", async () => {
    const dir = join(tempDir(), "store");
    const cwd = tempDir();
    const home = tempDir();
    const [sessionId, planId] = (await askThenKill("plan-ask-and-wait.mjs", [dir, cwd, home])) as [string, string];

    const config = planConfig({ requireApproval: true });
    const work = steps();
    const main = scriptedModel([]);
    const driver = await harness({
      store: await openStore(dir),
      cwd,
      arborHome: home,
      config,
      askPollMs: 25,
      model: planModel({ main, steps: work }),
    });
    const answerer = await harness({ store: await openStore(dir), cwd, arborHome: home, config });
    expect((await answerer.runtime.asks.listPlans()).map((p) => p.planId)).toEqual([planId]);
    const resumed = driver.runtime.runs.resume(sessionId);
    const again = await untilAsked(resumed);
    expect(again.planId).toBe(planId);
    expect(await driver.store.listAsks({ sessionId })).toHaveLength(1);
    const answered = await answerer.runtime.asks.approvePlan(planId, false, "not now");
    // The driver's run takes the answer from the store: no run is started here.
    expect(answered.run).toBeUndefined();
    const events = await again.rest();
    const result = await resumed.result;
    expect(result).toMatchObject({ status: "done", stopReason: "plan_rejected" });
    expect(result.text).toContain("not now");
    expect(main.callCount).toBe(0);
    expect(stepUpdates(events)).toEqual([]);
    expect(work["Read the code"].callCount).toBe(0);
    expect(await planStatuses(driver.store, sessionId)).toEqual(["awaiting_approval", "rejected"]);
    // A second process started and killed: given room on a loaded machine.
  }, 60_000);
});
