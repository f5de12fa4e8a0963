import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunEventLog } from "../../src/events/run-event-log.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fileStore(maxEventsPerSession?: number): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-current-run-"));
  const store = await openStore({ kind: "file", dir, ...(maxEventsPerSession ? { maxEventsPerSession } : {}) });
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

const token = (n: number) => ({ type: "run.token", data: { session_id: "x", content: `t${n}` } });

async function firstIds(store: Store, sessionId: string): Promise<number[]> {
  const step = await new RunEventLog(store).reader(sessionId, { currentRun: true }).then((r) => r.next(false));
  return step.kind === "frames" ? step.frames.map((f) => f.id as number) : [];
}

describe("a reader of the current run, found in the log", () => {
  it("starts after the last logged run ending and skips watch events", async () => {
    const store = await fileStore();
    const { id } = await store.createSession();
    await store.appendEvents(id, [
      token(1),
      { type: "run.done", data: { session_id: id } },
      { type: "message_added", data: {} },
      token(2),
      token(3),
    ]);
    expect(await firstIds(store, id)).toEqual([4, 5]);
    // A run that ended: nothing is current.
    await store.appendEvents(id, [{ type: "run.error", data: { session_id: id, content: "x" } }]);
    expect((await new RunEventLog(store).reader(id, { currentRun: true }).then((r) => r.next(false))).kind).toBe("end");
  });

  it("starts at the oldest kept event when retention dropped the run's beginning", async () => {
    const store = await fileStore(1_200);
    const { id } = await store.createSession();
    for (let i = 0; i < 3; i++)
      await store.appendEvents(
        id,
        Array.from({ length: 500 }, (_, n) => token(i * 500 + n)),
      );
    const oldest = (await store.listEvents(id, { limit: 1 }))[0]?.id as number;
    expect(oldest).toBeGreaterThan(1);
    expect((await firstIds(store, id))[0]).toBe(oldest);
  });
});
