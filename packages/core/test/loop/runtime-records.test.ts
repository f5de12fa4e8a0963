import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { RunEventReader } from "../../src/events/run-event-reader.js";
import type { WatchMessage } from "../../src/events/watch-events.js";
import { runUsageOnWire } from "../../src/model/run-events.js";
import type { Runtime } from "../../src/runtime/types.js";
import { collect, harness, types } from "./harness.js";

/**
 * Every run records itself, with no wiring by whoever started it: its stream goes into the session's
 * event log (readable through `runtime.events`), and its trace's watchers (`runtime.watch`) hear it
 * start and end exactly once.
 */

/** Every run event a reader gives, up to the run's end. */
async function readAll(reader: RunEventReader): Promise<string[]> {
  const read: string[] = [];
  for (;;) {
    const step = await reader.next();
    if (step.kind !== "frames") return read;
    for (const frame of step.frames) read.push((JSON.parse(frame.json) as { type: string }).type);
    if (step.ended) return read;
  }
}

/** Watches a trace from its start; `completed` resolves at its first `trace_completed`. */
async function watchTrace(runtime: Runtime, traceId: string) {
  const received: WatchMessage[] = [];
  let completed: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    completed = resolve;
  });
  const stop = await runtime.watch.watch(traceId, 0, (m) => {
    received.push(m);
    if (m.event === "trace_completed") completed();
  });
  const names = () =>
    received.flatMap((m) =>
      m.event === "connected" ? [] : [m.event === "message_added" ? `message_added:${m.message.role}` : m.event],
    );
  return { received, names, completed: done, stop };
}

describe("a run records itself", () => {
  it("runtime.run: its events reach the log and its watchers hear trace_started … trace_completed once each", async () => {
    const { runtime, store } = await harness({ model: scriptedModel([[text("Recorded.")]]) });
    const { id } = await store.createSession();
    const watcher = await watchTrace(runtime, id);
    const { events, result } = await collect(runtime.runs.run({ sessionId: id, prompt: "hello" }));
    expect(result.status).toBe("done");
    await watcher.completed;
    watcher.stop();

    expect(watcher.names()).toEqual(["trace_started", "message_added:user", "message_added:assistant", "trace_completed"]);
    expect(watcher.received[1]).toMatchObject({ event: "trace_started", kind: "prompt", agent: "build" });
    expect(watcher.received.at(-1)).toMatchObject({ status: "done", stats: { total_messages: 2 } });
    // The caller's own stream and the log hold the same run.
    expect(await readAll(await runtime.events.reader(id, { after: 0 }))).toEqual(types(events));
    await runtime.events.settled();
    const ends = (await store.listEvents(id)).filter((r) => r.type === "trace_started" || r.type === "trace_completed");
    expect(ends.map((r) => r.type)).toEqual(["trace_started", "trace_completed"]);
  });

  it("runtime.resume: a woken run is recorded too, as kind wake", async () => {
    const { runtime, store, cwd } = await harness({ model: scriptedModel([[text("Taken up.")]]) });
    // What a process killed mid-run leaves: stored running, no lease held, the prompt unanswered.
    const { id } = await store.createSession({ status: "running", agentId: "build", cwd });
    await store.appendMessage(id, { role: "user", content: [{ type: "text", text: "finish this" }] });
    const watcher = await watchTrace(runtime, id);
    const { events, result } = await collect(runtime.runs.resume(id));
    expect(result.status).toBe("done");
    await watcher.completed;
    watcher.stop();

    expect(watcher.names()).toEqual(["trace_started", "message_added:assistant", "trace_completed"]);
    expect(watcher.received[1]).toMatchObject({ event: "trace_started", kind: "wake" });
    expect(await readAll(await runtime.events.reader(id, { after: 0 }))).toEqual(types(events));
  });

  it("the done event of a run taken up after a crash carries its status, text, usage and cost, as logged", async () => {
    const { runtime, store, cwd } = await harness({ model: scriptedModel([[text("Taken up.")]]) });
    const { id } = await store.createSession({ status: "running", agentId: "build", cwd });
    await store.appendMessage(id, { role: "user", content: [{ type: "text", text: "finish this" }] });
    const { events, result } = await collect(runtime.runs.resume(id));
    const want = {
      type: "done",
      session_id: id,
      status: "done",
      text: "Taken up.",
      steps: 1,
      usage: runUsageOnWire(result.usage),
      cost: result.cost,
      // The scripted model has no price: the cost counts only priced calls, and says so.
      ...(result.costKnown === false ? { cost_known: false } : {}),
    };
    expect(events.at(-1)).toEqual(want);
    // A client reading the log (another instance, after a reconnect) gets the same event.
    await runtime.events.settled();
    const logged = (await store.listEvents(id)).filter((r) => r.type === "run.done");
    expect(logged.map((r) => ({ type: "done", ...r.data }))).toEqual([want]);
  });

  it("a run refused because the session is not its to drive writes nothing to the session's log", async () => {
    const { runtime, store } = await harness({ model: scriptedModel([]) });
    const { id } = await store.createSession();
    const { events, result } = await collect(runtime.runs.resume(id));
    expect(result.error?.code).toBe("session_not_interrupted");
    // The caller still hears why; the log, where it would read as the end of another driver's run, does not.
    expect(types(events)).toEqual(["error"]);
    await runtime.close();
    expect(await store.listEvents(id)).toEqual([]);
  });
});
