import { join } from "node:path";
import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { RESUMED_INTERRUPTED_OUTPUT } from "../../src/loop/wake.js";
import type { Entry } from "../../src/model/entry.js";
import { subTraceId } from "../../src/model/ids.js";
import { openStore } from "../../src/store/open.js";
import type { MessageInput, Store } from "../../src/store/store.js";
import { answerMessage, toolCallPart, toolResultMessage, userMessage } from "../helpers/journal-messages.js";
import { branchModels, collect, harness, tempDir } from "./harness.js";

/**
 * A run killed while its sub-agents work leaves what a kill -9 leaves: the parent's open calls, the
 * batches they recorded, and each branch's session stored running with a journal that stops
 * mid-run (or ended, its result not yet recorded by the parent). Each case writes that by hand,
 * then a runtime resumes the parent. The real-process kill is in the CLI's fault tests.
 */

const user = userMessage;
const answer = answerMessage;
const call = toolCallPart;
const result = toolResultMessage;

/** The batch a parent's tool call `callId` recorded before its process died. */
async function batch(
  store: Store,
  parent: string,
  spec: { batchId: string; mode: "explore" | "delegate"; callId: string; tasks: Array<[string, string]> },
): Promise<void> {
  await store.appendEntry(parent, {
    type: "subagent_batch",
    batchId: spec.batchId,
    mode: spec.mode,
    callId: spec.callId,
    tasks: spec.tasks.map(([task, subSessionId]) => ({ task, subSessionId })),
  });
}

/** Call `ex1`'s batch: branches "look at A" and "look at B" in sessions `a` and `b`. */
const exploreBatch = (store: Store, parent: string, a: string, b: string) =>
  batch(store, parent, {
    batchId: "batch_ex",
    mode: "explore",
    callId: "ex1",
    tasks: [
      ["look at A", a],
      ["look at B", b],
    ],
  });

function toolOutputs(path: readonly Entry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of path) {
    if (e.type !== "message" || e.message.role !== "tool") continue;
    for (const p of e.message.content) out[p.toolCallId] = (p.output as { value: string }).value;
  }
  return out;
}

/**
 * A branch's session as its parent's dead process left it: running, nobody holding it, its task as
 * its prompt and then `after`; `ended` marks it finished (its parent never recorded it).
 */
async function branch(
  store: Store,
  parent: string,
  [id, mode, task]: [string, "explore" | "delegate", string],
  after: MessageInput[],
  ended = false,
): Promise<void> {
  await store.createSession({
    id,
    agentId: mode === "explore" ? "explore" : "general",
    mode: "agent",
    agentType: mode,
    status: "running",
    title: task,
    task,
    parentSessionId: parent,
    context: mode === "explore" ? { allowedTools: ["read", "grep", "glob", "list", "goal"], maxTurns: 20 } : { maxTurns: 50 },
  });
  for (const m of [user(task), ...after]) await store.appendMessage(id, m);
  if (ended) await store.updateSession(id, { status: "completed" });
}

/** A store with a parent session stored running (its process died) and the ids of its two explore branches. */
async function cutOffParent() {
  const store = await openStore(join(tempDir(), "store"));
  const at = new Date("2026-12-04T12:00:00Z");
  const { id: parent } = await store.createSession({ status: "running", agentId: "build" });
  return { store, parent, at, a: subTraceId(parent, "explore", at, 1), b: subTraceId(parent, "explore", at, 2) };
}

describe("resuming a run whose sub-agents were cut off with it", () => {
  it("continues two explore branches and a delegate from their journals and gives the parent their real results", async () => {
    const { store, parent, at, a, b } = await cutOffParent();
    const d = subTraceId(parent, "delegate", at, 1);
    await store.appendMessage(parent, user("main: find the bug and fix it"));
    await store.appendMessage(
      parent,
      answer([call("ex1", "explore", { branches: ["look at A", "look at B"] }), call("dl1", "delegate", { task: "fix C" })]),
    );
    await exploreBatch(store, parent, a, b);
    await batch(store, parent, { batchId: "batch_dl", mode: "delegate", callId: "dl1", tasks: [["fix C", d]] });
    // A: one tool call done, cut off before its next model call.
    await branch(store, parent, [a, "explore", "look at A"], [answer([call("l1", "list", {})]), result("l1", "list", "a.txt")]);
    // B: finished its work; the parent died before recording it.
    await branch(
      store,
      parent,
      [b, "explore", "look at B"],
      [answer([{ type: "text", text: "B: nothing wrong in b.txt." }], "stop")],
      true,
    );
    // The delegate: cut off mid-answer (its stream died with the process).
    await branch(store, parent, [d, "delegate", "fix C"], [answer([call("g1", "list", {})]), result("g1", "list", "c.txt")]);
    expect((await store.getSession(a))?.status).toBe("interrupted");
    expect((await store.getSession(parent))?.status).toBe("interrupted");

    const main = scriptedModel([[text("Found in A, fixed in C.")]]);
    const modelA = scriptedModel([[text("A: the bug is in a.txt line 3.")]]);
    const modelB = scriptedModel([]);
    const modelD = scriptedModel([[text("C fixed.")]]);
    const { runtime } = await harness({
      store,
      model: branchModels(main, { "look at A": modelA, "look at B": modelB, "fix C": modelD }),
    });
    const { result: done } = await collect(runtime.runs.resume(parent));
    expect(done.status).toBe("done");
    expect(done.text).toBe("Found in A, fixed in C.");

    // The branches continued: one more model call each, reading what they had done; B not re-run.
    expect(modelA.calls).toHaveLength(1);
    expect(JSON.stringify(modelA.calls[0]!.prompt)).toContain("a.txt");
    expect(modelD.calls).toHaveLength(1);
    expect(JSON.stringify(modelD.calls[0]!.prompt)).toContain("c.txt");
    expect(modelB.calls).toHaveLength(0);
    for (const id of [a, b, d]) expect((await store.getSession(id))?.status).toBe("completed");
    const userMessages = (await store.getActivePath(a)).filter((e) => e.type === "message" && e.message.role === "user");
    expect(userMessages).toHaveLength(1);

    // The parent got the branches' real results, each recorded once.
    const path = await store.getActivePath(parent);
    const outputs = toolOutputs(path);
    expect(outputs.ex1).toContain("A: the bug is in a.txt line 3.");
    expect(outputs.ex1).toContain("B: nothing wrong in b.txt.");
    expect(outputs.dl1).toContain("C fixed.");
    expect(JSON.stringify(path)).not.toContain(RESUMED_INTERRUPTED_OUTPUT);
    const results = path.filter((e) => e.type === "subagent_result");
    expect(results.map((e) => (e.type === "subagent_result" ? e.subSessionId : "")).sort()).toEqual([a, b, d].sort());
    expect(path.filter((e) => e.type === "subagent_batch")).toHaveLength(2);
    // The parent's model read both results before it answered.
    const mainPrompt = JSON.stringify(main.calls[0]!.prompt);
    expect(mainPrompt).toContain("A: the bug is in a.txt line 3.");
    expect(mainPrompt).toContain("C fixed.");
  });

  it("keeps a result the parent had recorded, and starts a branch the crash cut off before its session existed", async () => {
    const { store, parent, a, b } = await cutOffParent();
    await store.appendMessage(parent, user("main: compare"));
    await store.appendMessage(parent, answer([call("ex1", "explore", { branches: ["look at A", "look at B"] })]));
    await exploreBatch(store, parent, a, b);
    await branch(store, parent, [a, "explore", "look at A"], [answer([{ type: "text", text: "A: fine." }], "stop")], true);
    await store.appendEntry(parent, {
      type: "subagent_result",
      batchId: "batch_ex",
      subSessionId: a,
      status: "completed",
      summary: "A: fine.",
      metadata: { processEvents: [], evidenceSummaries: [], toolRuntimeRoutes: [] },
    });
    const main = scriptedModel([[text("Both fine.")]]);
    const modelA = scriptedModel([]);
    const modelB = scriptedModel([[text("B: fine too.")]]);
    const { runtime } = await harness({ store, model: branchModels(main, { "look at A": modelA, "look at B": modelB }) });
    const { result: done } = await collect(runtime.runs.resume(parent));
    expect(done.status).toBe("done");
    expect(modelA.calls).toHaveLength(0);
    expect(modelB.calls).toHaveLength(1);
    expect((await store.getSession(b))?.parentSessionId).toBe(parent);
    const path = await store.getActivePath(parent);
    expect(toolOutputs(path).ex1).toContain("A: fine.");
    expect(toolOutputs(path).ex1).toContain("B: fine too.");
    const results = path.filter((e) => e.type === "subagent_result");
    expect(results).toHaveLength(2);
  });
});
