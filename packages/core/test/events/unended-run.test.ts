import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { RunEventLog } from "../../src/events/run-event-log.js";
import type { RunEventFrame } from "../../src/events/run-event-records.js";
import { runUsageOnWire } from "../../src/model/run-events.js";
import { awaitEnding, endUnendedRun, lacksEnding } from "../../src/runtime/unended-run.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { collect, harness, printTool, tempDir } from "../loop/harness.js";

/**
 * A run stores its outcome, gives its lease back, then logs its `done`. A process killed in between
 * leaves a finished session whose log's latest run has no ending: a reader of its stream elsewhere
 * must still get one. The dying process is played by a store that drops the run's `done` on its way
 * into the log.
 */

/** The store as the killed process used it: everything but the run's ending reached the log. */
function losingEndings(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === "appendEvents")
        return (id: string, events: Parameters<Store["appendEvents"]>[1]) =>
          target.appendEvents(
            id,
            events.filter((e) => e.type !== "run.done"),
          );
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function finishedWithoutEnding() {
  const store = await openStore(join(tempDir("arbor-unended-"), "store"));
  const model = scriptedModel([[toolCall("print", { text: "hi" }, { id: "p1" })], [text("The answer is 42.")]]);
  const { runtime } = await harness({ store: losingEndings(store), model, tools: [printTool] });
  const { result } = await collect(runtime.runs.run({ prompt: "What is the answer?" }));
  expect(result.status).toBe("done");
  return { store, sessionId: result.sessionId, result };
}

describe("a run whose process died after storing its outcome and before logging its ending", () => {
  it("is known to lack its ending; a reader waits, and gets the ending written from the journal once the grace is over", async () => {
    const { store, sessionId, result } = await finishedWithoutEnding();
    expect((await store.getSession(sessionId))?.status).toBe("completed");
    expect(await lacksEnding(store, sessionId)).toBe(true);
    // Within the grace its own process may still be logging it: nothing is written yet.
    expect(await endUnendedRun(store, sessionId)).toBe(false);

    const log = new RunEventLog(store, { unended: (id) => awaitEnding(store, id, 0) });
    const reader = await log.reader(sessionId, { currentRun: true });
    const frames: RunEventFrame[] = [];
    for (;;) {
      const step = await reader.next();
      if (step.kind !== "frames") break;
      frames.push(...step.frames);
      if (step.ended) break;
    }
    const ending = JSON.parse((frames.at(-1) as RunEventFrame).json);
    expect(ending).toMatchObject({
      type: "done",
      status: "done",
      text: "The answer is 42.",
      steps: result.steps,
      cost: result.cost,
      session_id: sessionId,
    });
    expect(ending.usage).toEqual(runUsageOnWire(result.usage));
    const logged = (await store.listEvents(sessionId, { after: 0 })).filter((r) => r.type === "run.done");
    expect(logged.map((r) => r.id)).toEqual([(frames.at(-1) as RunEventFrame).id]);
    // Written once: a second reader, or another process, finds it there.
    expect(await lacksEnding(store, sessionId)).toBe(false);
    expect(await endUnendedRun(store, sessionId, 0)).toBe(false);
    expect((await store.listEvents(sessionId, { after: 0 })).filter((r) => r.type === "run.done")).toHaveLength(1);
  });

  it("a session driven by a live run is left alone", async () => {
    const { store, sessionId } = await finishedWithoutEnding();
    const lease = await store.acquireLease(sessionId, "a new run");
    try {
      expect(await endUnendedRun(store, sessionId, 0)).toBe(false);
    } finally {
      await lease.release();
    }
    expect(await endUnendedRun(store, sessionId, 0)).toBe(true);
  });
});
