import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ForeignRuns, RunEventLog } from "../../src/events/run-event-log.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fileStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-foreign-runs-"));
  const store = await openStore({ kind: "file", dir });
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** Another process's run, as a cluster sees it: driven while `driving`, and a wake-up per notification. */
function foreignRuns() {
  let driving = true;
  const waiting: Array<{ ms: number; wake: () => void }> = [];
  const runs: ForeignRuns = {
    driven: async () => driving,
    changed: (_sessionId, ms) => new Promise<void>((wake) => waiting.push({ ms, wake })),
  };
  return {
    runs,
    waiting,
    notify: () => {
      for (const w of waiting.splice(0)) w.wake();
    },
    stop: () => {
      driving = false;
    },
  };
}

/** A run handle over scripted events, as the event log records one (its result is never read here). */
const handleOf = (sessionId: string, events: AsyncGenerator<RunEvent>) => ({
  sessionId,
  result: Promise.resolve({} as never),
  abort: () => {},
  [Symbol.asyncIterator]: () => events,
});

/** A driver cut off by a takeover: two tokens, then the abort its lapsed lease ends it with (its outcome not stored). */
async function* cutOff(sessionId: string): AsyncGenerator<RunEvent> {
  yield { type: "token", session_id: sessionId, content: "a1" };
  yield { type: "token", session_id: sessionId, content: "a2" };
  yield { type: "error", session_id: sessionId, content: "The run was aborted.", code: "aborted" };
}

/** A driver whose lease lapsed before it stored anything (a new session): two tokens, then the lost lease. */
async function* leaseLost(sessionId: string): AsyncGenerator<RunEvent> {
  yield { type: "token", session_id: sessionId, content: "a1" };
  yield { type: "token", session_id: sessionId, content: "a2" };
  yield { type: "error", session_id: sessionId, content: "The session's lease was lost.", code: "session_busy" };
}

/**
 * The new driver takes the run over (one token, then it stores the run's outcome and ends its stream)
 * and the cluster tells the reader waiting on `step`: it reads the new driver's events, to the end.
 */
async function takeOver(
  store: Store,
  id: string,
  foreign: ReturnType<typeof foreignRuns>,
  step: ReturnType<Awaited<ReturnType<RunEventLog["reader"]>>["next"]>,
): Promise<void> {
  async function* takenOver(): AsyncGenerator<RunEvent> {
    yield { type: "token", session_id: id, content: "b1" };
    await store.updateSession(id, { status: "completed" });
    yield { type: "done", session_id: id, status: "done", text: "b1" };
  }
  await new RunEventLog(store).record(handleOf(id, takenOver())).recorded;
  foreign.notify();
  const rest = await step;
  expect(rest.kind === "frames" && rest.frames.map((f) => [f.id, JSON.parse(f.json).type])).toEqual([
    [3, "token"],
    [4, "done"],
  ]);
  expect(rest.kind === "frames" && rest.ended).toBe(true);
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setImmediate(r));
};

describe("a reader of a run another process drives", () => {
  it("waits for a notification instead of ending, then reads the log from where it was", async () => {
    const store = await fileStore();
    const { id } = await store.createSession();
    const foreign = foreignRuns();
    const log = new RunEventLog(store, { foreign: foreign.runs });
    await store.appendEvents(id, [{ type: "run.token", data: { session_id: id, content: "a" } }]);
    const reader = await log.reader(id, { after: 0 });
    const first = await reader.next();
    expect(first.kind === "frames" && first.frames.map((f) => f.id)).toEqual([1]);

    const second = reader.next();
    await until(() => foreign.waiting.length === 1);
    // The wait is bounded, so a lost notification costs one read, never the stream.
    expect(foreign.waiting[0]?.ms).toBeGreaterThan(0);
    await store.appendEvents(id, [{ type: "run.done", data: { session_id: id } }]);
    foreign.notify();
    const step = await second;
    expect(step.kind === "frames" && step.frames.map((f) => f.id)).toEqual([2]);
    expect(step.kind === "frames" && step.ended).toBe(true);
  });

  it("ends once no process drives the session and the log has nothing more", async () => {
    const store = await fileStore();
    const { id } = await store.createSession();
    const foreign = foreignRuns();
    const log = new RunEventLog(store, { foreign: foreign.runs });
    const reader = await log.reader(id, { after: 0 });
    expect((await reader.next(false)).kind).toBe("live");
    foreign.stop();
    expect((await reader.next(false)).kind).toBe("end");
  });

  it("tells onLogged the last id of each batch a local run logged", async () => {
    const store = await fileStore();
    const { id } = await store.createSession();
    const logged: Array<[string, number]> = [];
    const log = new RunEventLog(store, { onLogged: (s, last) => logged.push([s, last]) });
    async function* events() {
      yield { type: "token" as const, session_id: id, content: "x" };
      yield { type: "done" as const, session_id: id };
    }
    const it = events();
    const handle = {
      sessionId: id,
      result: Promise.resolve({} as never),
      abort: () => {},
      [Symbol.asyncIterator]: () => it,
    };
    await log.record(handle).recorded;
    expect(logged.at(-1)).toEqual([id, 2]);
  });

  it("reads a run this process starts while the reader looks in the log, instead of ending with nothing", async () => {
    // A queued chat: the reader waits for a run that may start anywhere, also here, at any moment.
    const store = await fileStore();
    const { id } = await store.createSession();
    const foreign = foreignRuns();
    let log: RunEventLog | undefined;
    let started: Promise<void> | undefined;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    async function* events() {
      yield { type: "token" as const, session_id: id, content: "here" };
      await gate;
      yield { type: "done" as const, session_id: id };
    }
    const it = events();
    const handle = { sessionId: id, result: Promise.resolve({} as never), abort: () => {}, [Symbol.asyncIterator]: () => it };
    // The run begins here just as the reader's read of the log comes back empty.
    const racing = new Proxy(store, {
      get(target, key, receiver) {
        if (key !== "listEvents") return Reflect.get(target, key, receiver);
        return async (...args: Parameters<Store["listEvents"]>) => {
          const page = await target.listEvents(...args);
          if (!started && log) started = log.record(handle).recorded;
          return page;
        };
      },
    });
    log = new RunEventLog(racing, { foreign: foreign.runs });
    const reader = await log.reader(id, { after: 0 });
    const first = await reader.next();
    expect(first.kind === "frames" && first.frames.map((f) => JSON.parse(f.json).type)).toEqual(["token"]);
    release();
    const rest = await reader.next();
    expect(rest.kind === "frames" && rest.ended).toBe(true);
    await started;
  });

  it("follows a takeover exactly: the cut-off driver's ending stays out of the log, the new driver's events follow", async () => {
    // Three processes over one store: A drives the run and loses its lease, B takes the session over,
    // and a client of C (reconnected there after its own instance died) reads the log from an id.
    const store = await fileStore();
    const { id } = await store.createSession({ status: "running" });
    const a = new RunEventLog(store).record(handleOf(id, cutOff(id)));
    await a.recorded;
    // A's own readers do not hear the cut-off run's ending either: they follow the log on, to the
    // ending of whoever ends the session's run (here nobody drives it from A's view, so the read ends).
    const local = await a.reader.next();
    expect(local.kind === "frames" && local.frames.map((f) => [f.id, JSON.parse(f.json).type])).toEqual([
      [1, "token"],
      [2, "token"],
    ]);
    expect(local.kind === "frames" && local.ended).toBe(false);

    const foreign = foreignRuns();
    const reader = await new RunEventLog(store, { foreign: foreign.runs }).reader(id, { after: 1 });
    const caughtUp = await reader.next();
    expect(caughtUp.kind === "frames" && caughtUp.frames.map((f) => f.id)).toEqual([2]);
    const waiting = reader.next();
    await until(() => foreign.waiting.length === 1);

    await takeOver(store, id, foreign, waiting);
    const logged = (await store.listEvents(id)).map((r) => [r.id, r.type]);
    expect(logged).toEqual([
      [1, "run.token"],
      [2, "run.token"],
      [3, "run.token"],
      [4, "run.done"],
    ]);
  });

  it("a run that lost its lease before its session was ever marked running keeps its ending out of the log too", async () => {
    // A queued chat's first run on a new session (no status stored yet) loses its lease in a stall;
    // the chat goes back to the queue and another instance runs it. The cut-off run's session_busy
    // is not the session's ending: a reader that took it as one stopped before the run that followed.
    const store = await fileStore();
    const { id } = await store.createSession();
    const foreign = foreignRuns();
    await new RunEventLog(store).record(handleOf(id, leaseLost(id))).recorded;
    expect((await store.listEvents(id)).map((r) => r.type)).toEqual(["run.token", "run.token"]);
    const reader = await new RunEventLog(store, { foreign: foreign.runs }).reader(id, { after: 1 });
    const caughtUp = await reader.next();
    expect(caughtUp.kind === "frames" && caughtUp.ended).toBe(false);
    const waiting = reader.next();
    await until(() => foreign.waiting.length === 1);
    await takeOver(store, id, foreign, waiting);
  });

  it("a reader that reconnects to the instance whose run was cut off reads on from its tail into the new driver's events", async () => {
    // The instance that drove the run before a takeover still holds the run's events in memory; a
    // client reconnecting there with Last-Event-ID is placed in that tail, which ends without an
    // ending (it stays out of the log). The new driver's events follow only in the log.
    const store = await fileStore();
    const { id } = await store.createSession({ status: "running" });
    const foreign = foreignRuns();
    const a = new RunEventLog(store, { foreign: foreign.runs });
    await a.record(handleOf(id, cutOff(id))).recorded;

    // Between drivers: the session reads as running, nobody has taken it over yet.
    const reader = await a.reader(id, { after: 1 });
    const caughtUp = await reader.next();
    expect(caughtUp.kind === "frames" && caughtUp.frames.map((f) => f.id)).toEqual([2]);
    expect(caughtUp.kind === "frames" && caughtUp.ended).toBe(false);
    const waiting = reader.next();
    // It waits for the next driver; a reader that ended instead fails here at once.
    let ended: string | undefined;
    void waiting.then((step) => {
      ended = step.kind;
    });
    await until(() => foreign.waiting.length === 1 || ended !== undefined);
    expect(ended).toBeUndefined();

    await takeOver(store, id, foreign, waiting);

    // The cut-off run's own follower goes on the same way, from its first event.
    const follower = await a.reader(id, { after: 0 });
    const all: number[] = [];
    for (;;) {
      const step = await follower.next();
      if (step.kind !== "frames") break;
      all.push(...step.frames.map((f) => f.id ?? 0));
      if (step.ended) break;
    }
    expect(all).toEqual([1, 2, 3, 4]);
  });
});
