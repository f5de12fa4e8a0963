import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { collect, gateTool as gate, harness, tempDir, transcript } from "./harness.js";

describe("the runtime answers who drives a session", () => {
  it("busy: idle, a run of its own, another process's lease; abort by session", async () => {
    const g = gate();
    const model = scriptedModel([[toolCall("gate", {})], [text("never")]]);
    const { runtime, store } = await harness({ model, tools: [g.tool] });
    const { id } = await store.createSession();
    expect(await runtime.runs.busy(id)).toBeUndefined();

    const run = runtime.runs.run({ sessionId: id, prompt: "wait" });
    await g.reached;
    expect(await runtime.runs.busy(id)).toEqual({ where: "this_runtime" });
    // A prompt that must not queue behind it ends at once, having written nothing.
    const second = runtime.runs.run({ sessionId: id, prompt: "again", busy: "reject" });
    expect((await second.result).error?.code).toBe("session_busy");

    expect(runtime.runs.abort(id)).toBe(true);
    expect((await run.result).status).toBe("aborted");
    expect(runtime.runs.abort(id)).toBe(false);
    expect(await runtime.runs.busy(id)).toBeUndefined();
    expect((await transcript(store, id)).filter((l) => l.startsWith("user"))).toEqual(["user: wait"]);
  });

  it("a run started for a queued request names the request in its lease's holder", async () => {
    const g = gate();
    const model = scriptedModel([[toolCall("gate", {})], [text("done")]]);
    const { runtime, store } = await harness({ model, tools: [g.tool] });
    const { id } = await store.createSession();
    const run = runtime.runs.run({ sessionId: id, prompt: "wait", requestKey: "chat-7" });
    await g.reached;
    // A cluster's sweep gives the request back to its queue once this lease expires unrenewed.
    expect(await store.leaseHolder(id)).toMatchObject({ request: "chat-7" });
    g.release();
    expect((await run.result).status).toBe("done");
  });

  it("busy names another process that holds the session's lease", async () => {
    const dir = join(tempDir(), "store");
    const { runtime, store } = await harness({ store: await openStore(dir) });
    const { id } = await store.createSession();
    // A second store instance over the same data stands for a second process.
    const other = await openStore(dir);
    try {
      const lease = await other.acquireLease(id, "another driver");
      const driver = await runtime.runs.busy(id);
      expect(driver).toMatchObject({ where: "elsewhere", holder: { purpose: "another driver" } });
      await lease.release();
      expect(await runtime.runs.busy(id)).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe("continue from an entry as a run operation", () => {
  it("re-sends from a user message's parent, follows any other entry, refuses an unknown one having written nothing", async () => {
    const model = scriptedModel([[text("first answer")], [text("second answer")], [text("third answer")]]);
    const { runtime, store } = await harness({ model });
    const first = await collect(runtime.runs.run({ prompt: "one" }));
    const sessionId = first.result.sessionId;
    const [user, assistant] = await store.getActivePath(sessionId);

    await collect(runtime.runs.run({ sessionId, prompt: "one, again", fromEntryId: user?.id as string }));
    expect(await transcript(store, sessionId)).toEqual(["user: one, again", "assistant: second answer"]);

    await collect(runtime.runs.run({ sessionId, prompt: "two", fromEntryId: assistant?.id as string }));
    expect(await transcript(store, sessionId)).toEqual([
      "user: one",
      "assistant: first answer",
      "user: two",
      "assistant: third answer",
    ]);

    const before = (await store.listEntries(sessionId)).length;
    const unknown = await collect(runtime.runs.run({ sessionId, prompt: "three", fromEntryId: "no-such-entry" }));
    expect(unknown.result.error?.code).toBe("entry_not_found");
    expect((await store.listEntries(sessionId)).length).toBe(before);
    const orphan = await collect(runtime.runs.run({ prompt: "four", fromEntryId: user?.id as string }));
    expect(orphan.result.error?.code).toBe("invalid_input");
  });
});
