import { describe, expect, it } from "vitest";
import { RunEventLog } from "../../src/events/run-event-log.js";
import type { RunEventReader } from "../../src/events/run-event-reader.js";
import { RUN_EVENT_PREFIX } from "../../src/events/run-event-records.js";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { RunEvent } from "../../src/model/run-events.js";
import type { Store } from "../../src/store/store.js";
import { harnessPerTest, type MakeHarness } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

/** A run handle the test drives: events are pushed by hand, the stream ends with `end`. */
function manualRun(sessionId: string) {
  const queue: RunEvent[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const handle: RunHandle = {
    sessionId,
    result: new Promise(() => {}),
    abort: () => {},
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    handle,
    push(...events: RunEvent[]) {
      queue.push(...events);
      poke();
    },
    end() {
      ended = true;
      poke();
    },
  };
}

const token = (sessionId: string, content: string): RunEvent => ({ type: "token", session_id: sessionId, content });
const done = (sessionId: string): RunEvent => ({ type: "done", session_id: sessionId });

/** Every frame a reader yields until its stream ends (expired counts as a failure). */
async function readAll(reader: RunEventReader): Promise<Array<{ id: number | undefined; event: RunEvent }>> {
  const out: Array<{ id: number | undefined; event: RunEvent }> = [];
  for (;;) {
    const step = await reader.next();
    if (step.kind === "end") return out;
    if (step.kind !== "frames") throw new Error(`reader stopped: ${step.kind}`);
    for (const f of step.frames) out.push({ id: f.id, event: JSON.parse(f.json) as RunEvent });
    if (step.ended) return out;
  }
}

async function loggedRunIds(store: Store, sessionId: string): Promise<number[]> {
  return (await store.listEvents(sessionId, { limit: 10_000 }))
    .filter((r) => r.type.startsWith(RUN_EVENT_PREFIX))
    .map((r) => r.id);
}

/**
 * The run stream's road through the store's event log: what `RunEventLog` needs of every backend
 * (ids without gaps, shared with watch records, readable by another instance while a driver holds
 * the session) and what it promises on top (each event once, in order, after a reopen too).
 */
export function runEventsSuite(makeHarness: MakeHarness): void {
  describe("run events", () => {
    const h = harnessPerTest(makeHarness);

    it("records a run's events in the session log between watch records, and reads them back from any id after a reopen", async () => {
      const { id } = await h.store.createSession();
      const log = new RunEventLog(h.store);
      const run = manualRun(id);
      const { reader, recorded } = log.record(run.handle);
      run.push(token(id, "a"), token(id, "b"));
      await h.store.appendEvents(id, [{ type: "message_added", data: { n: 1 } }]);
      run.push(token(id, "c"), done(id));
      run.end();
      const live = await readAll(reader);
      await recorded;
      expect(live.map((f) => f.event)).toEqual([token(id, "a"), token(id, "b"), token(id, "c"), done(id)]);
      const ids = live.map((f) => f.id as number);
      expect(ids).toEqual(await loggedRunIds(h.store, id));
      expect(ids.every((x, i) => i === 0 || x > (ids[i - 1] as number))).toBe(true);
      const all = await h.store.listEvents(id);
      expect(all.map((r) => r.id)).toEqual(all.map((_, i) => (all[0]?.id ?? 0) + i));

      const store = await h.reopen();
      const fresh = new RunEventLog(store);
      for (let k = 0; k < ids.length; k++) {
        const rest = await readAll(await fresh.reader(id, { after: ids[k] as number }));
        expect(rest.map((f) => f.id)).toEqual(ids.slice(k + 1));
      }
      const whole = await readAll(await fresh.reader(id, { after: (ids[0] as number) - 1 }));
      expect(whole).toEqual(live);
      await expectCode(fresh.reader(id, { after: (await store.lastEventId(id)) + 1 }), "events_expired");
      await expectCode(fresh.reader("no-such-session", { after: 0 }), "session_not_found");
    });

    it("a reader left behind what the tail keeps in memory reads the rest from the store, in order, once each", async () => {
      const { id } = await h.store.createSession();
      // About four of these tokens fit in the tail's characters: the rest of the run is only in the store.
      const log = new RunEventLog(h.store, { charsPerSession: 300 });
      const run = manualRun(id);
      const { reader, recorded } = log.record(run.handle);
      const sent = Array.from({ length: 40 }, (_, n) => token(id, `${n}:${"w".repeat(60)}`));
      for (const event of sent) {
        run.push(event);
        // Each logged in a batch of its own, so the tail drops while the reader waits.
        await log.logged(id);
      }
      run.push(done(id));
      run.end();
      await recorded;
      const read = await readAll(reader);
      expect(read.map((f) => f.event)).toEqual([...sent, done(id)]);
      expect(read.map((f) => f.id)).toEqual(await loggedRunIds(h.store, id));
    });

    /** A run this instance drives under the session's lease, its first token read by its own reader. */
    async function drivenRun() {
      const { id } = await h.store.createSession();
      const lease = await h.store.acquireLease(id, "test run");
      const log = new RunEventLog(h.store);
      const run = manualRun(id);
      const { reader: local, recorded } = log.record(run.handle);
      run.push(token(id, "1"));
      expect((await local.next()).kind).toBe("frames");
      return { id, lease, log, run, recorded };
    }

    it("a second instance follows a run the first drives while it holds the session, to its end", async () => {
      const { id, lease, run, recorded } = await drivenRun();

      const other = await h.another();
      const follower = await new RunEventLog(other).reader(id, { after: 0 });
      const followed = readAll(follower);
      run.push(token(id, "2"), token(id, "3"));
      run.push(done(id));
      run.end();
      await recorded;
      await lease.release();
      const seen = await followed;
      expect(seen.map((f) => f.event)).toEqual([token(id, "1"), token(id, "2"), token(id, "3"), done(id)]);
      expect(seen.map((f) => f.id)).toEqual(await loggedRunIds(other, id));
    });

    it("a follower whose driver logs its last events and lets go between the follower's read and its ask still reads them", async () => {
      const { id, lease, log, run, recorded } = await drivenRun();
      await log.logged(id);

      const other = await h.another();
      let asks = 0;
      // The follower found nothing more in the log and asks whether anyone drives the session: the
      // first time, the run logs the rest of its events and gives the session back before the answer.
      const foreign = {
        async driven(sessionId: string) {
          asks += 1;
          if (asks === 1) {
            run.push(token(id, "2"), done(id));
            run.end();
            await recorded;
            await lease.release();
          }
          return (await other.leaseHolder(sessionId)) !== undefined;
        },
        changed: async () => {},
      };
      const follower = await new RunEventLog(other, { foreign }).reader(id, { after: 0 });
      const seen = await readAll(follower);
      expect(asks).toBeGreaterThan(0);
      expect(seen.map((f) => f.event)).toEqual([token(id, "1"), token(id, "2"), done(id)]);
      expect(seen.map((f) => f.id)).toEqual(await loggedRunIds(other, id));
    });

    it("events that come before their session exists are logged once it does; a session that never exists still ends its stream", async () => {
      const id = "run-events-late";
      const log = new RunEventLog(h.store);
      const run = manualRun(id);
      const { reader, recorded } = log.record(run.handle);
      run.push(token(id, "early"));
      // The first append found no session; the next event retries it.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await h.store.createSession({ id });
      run.push(token(id, "later"), done(id));
      run.end();
      const frames = await readAll(reader);
      await recorded;
      expect(frames.map((f) => f.event)).toEqual([token(id, "early"), token(id, "later"), done(id)]);
      expect(frames.map((f) => f.id)).toEqual(await loggedRunIds(h.store, id));

      const ghost = "run-events-ghost";
      const never = manualRun(ghost);
      const stream = log.record(never.handle);
      never.push({ type: "error", session_id: ghost, content: "unknown agent", code: "invalid_input" });
      never.end();
      const ended = await readAll(stream.reader);
      await stream.recorded;
      expect(ended.map((f) => f.event.type)).toEqual(["error"]);
      expect(ended[0]?.id).toBe(1);
    });
  });
}
