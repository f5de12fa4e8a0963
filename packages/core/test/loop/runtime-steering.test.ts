import { join } from "node:path";
import { type ScriptedModel, scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it, vi } from "vitest";
import { isArborError } from "../../src/errors.js";
import { createRuntime } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { collect, gateTool as gate, harness, tempDir, transcript } from "./harness.js";

/** The text of every user message the model was sent in its `n`th call. */
function userTexts(model: ScriptedModel, n: number): string[] {
  const call = model.calls[n];
  if (!call) throw new Error(`the model was called ${model.calls.length} times, not ${n + 1}`);
  return call.prompt
    .filter((m) => m.role === "user")
    .map((m) => (m.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? "").join(""));
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (isArborError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("steering a running agent", () => {
  it("a message sent mid-step reaches the model at its next step, after the step's tool results", async () => {
    const g = gate();
    const model = scriptedModel([[toolCall("gate", {})], [text("switching to the blue theme")]]);
    const { runtime, store } = await harness({ model, tools: [g.tool] });
    const run = runtime.runs.run({ prompt: "paint the page red" });
    await g.reached;

    const steered = await runtime.sessions.steer(run.sessionId, "Use blue instead of red.");
    expect(steered.sessionId).toBe(run.sessionId);
    // Recorded at once, before the run reads it.
    const inbox = await store.readInbox(run.sessionId, "");
    expect(inbox.messages.map((m) => [m.id, m.text])).toEqual([[steered.messageId, "Use blue instead of red."]]);
    g.release();
    const { result } = await collect(run);
    expect(result.status).toBe("done");

    expect(userTexts(model, 0)).toEqual(["paint the page red"]);
    const second = userTexts(model, 1);
    expect(second).toHaveLength(2);
    expect(second[1]).toContain("the user sent the following message:\nUse blue instead of red.\n");
    expect(second[1]).toContain("Please address this message and continue with your tasks");
    // The steering message follows the tool result: never between a call and its result.
    const roles = model.calls[1]!.prompt.map((m) => m.role);
    expect(roles.slice(-3)).toEqual(["assistant", "tool", "user"]);
    const lines = await transcript(store, run.sessionId);
    expect(lines[0]).toBe("user: paint the page red");
    expect(lines.at(-1)).toBe("assistant: switching to the blue theme");
  });

  it("several messages arrive in the order sent, each once", async () => {
    const g = gate();
    const model = scriptedModel([[toolCall("gate", {})], [toolCall("gate", {})], [text("done")]]);
    const { runtime } = await harness({ model, tools: [g.tool] });
    const run = runtime.runs.run({ prompt: "work" });
    await g.reached;
    await runtime.sessions.steer(run.sessionId, "first note");
    await runtime.sessions.steer(run.sessionId, "second note");
    g.release();
    await g.reachedCall(2);
    g.release();
    const { result } = await collect(run);
    expect(result.status).toBe("done");
    const steerings = (n: number) => userTexts(model, n).filter((t) => t.includes("the user sent the following message"));
    expect(steerings(1)).toHaveLength(2);
    expect(steerings(1)[0]).toContain("first note");
    expect(steerings(1)[1]).toContain("second note");
    // Not written again at the following step.
    expect(steerings(2)).toHaveLength(2);
  });

  it("reaches a run driven by another process over the same store", async () => {
    const dir = join(tempDir(), "store");
    const g = gate();
    const model = scriptedModel([[toolCall("gate", {})], [text("noted")]]);
    const runStore = await openStore(dir);
    const { runtime } = await harness({ model, tools: [g.tool], store: runStore });
    const run = runtime.runs.run({ prompt: "go" });
    await g.reached;
    // A second store and runtime over the same data stand for another terminal.
    const otherStore = await openStore(dir);
    const other = createRuntime({ store: otherStore, cwd: tempDir(), env: {}, blobs: new MemoryBlobStore() });
    try {
      expect(await other.runs.busy(run.sessionId)).toMatchObject({ where: "elsewhere" });
      await other.sessions.steer(run.sessionId, "from another terminal");
      // The driver's store learns of it by a watch of the inbox or a look at it (at least every
      // INBOX_LOOK_MS), not by the other store: the step that follows reads it.
      await vi.waitFor(() => expect(runStore.inboxMayHaveNew?.(run.sessionId, "")).toBe(true));
    } finally {
      await other.close();
      await otherStore.close();
    }
    g.release();
    expect((await collect(run)).result.status).toBe("done");
    expect(userTexts(model, 1).at(-1)).toContain("from another terminal");
  });

  it("refuses an idle, finished, unknown session or an empty message, writing nothing", async () => {
    const model = scriptedModel([[text("hello")]]);
    const { runtime, store } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    const id = result.sessionId;
    const before = { entries: await store.listEntries(id), inbox: await store.readInbox(id, "") };

    const finished = await rejection(runtime.sessions.steer(id, "are you there?"));
    expect(finished.code).toBe("session_not_running");
    expect(finished.message).toMatch(/it is completed[\s\S]*start a run with this message instead/);
    const idle = await store.createSession();
    expect((await rejection(runtime.sessions.steer(idle.id, "hello"))).code).toBe("session_not_running");
    expect((await rejection(runtime.sessions.steer(id, "   "))).code).toBe("invalid_input");
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await rejection(runtime.sessions.steer(unknown, "hello"))).code).toBe("session_not_found");
    expect((await rejection(runtime.sessions.steer("../x", "hello"))).code).toBe("invalid_id");

    expect(await store.listEntries(id)).toEqual(before.entries);
    expect(await store.readInbox(id, "")).toEqual(before.inbox);
    expect((await store.readInbox(idle.id, "")).messages).toEqual([]);
  });
});
