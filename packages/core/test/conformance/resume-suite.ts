import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ScriptedModel, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { goalTreeOnPath } from "../../src/goal/goal-path.js";
import { defineGoalTool } from "../../src/goal/goal-tool.js";
import type { RunHandle } from "../../src/loop/run-types.js";
import { idempotencyKeyOf, TOOL_STARTED_ENTRY_TYPE, type ToolStarted } from "../../src/loop/tool-start.js";
import { RESUMED_INTERRUPTED_OUTPUT } from "../../src/loop/wake.js";
import type { Entry } from "../../src/model/entry.js";
import type { RunEvent } from "../../src/model/run-events.js";
import type { Runtime } from "../../src/runtime/types.js";
import { createRuntime } from "../../src/runtime.js";
import type { MessageInput } from "../../src/store/store.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { defineTool } from "../../src/tools/tool.js";
import { answerMessage, toolCallPart, toolResultMessage, userMessage } from "../helpers/journal-messages.js";
import type { MakeHarness, StoreHarness } from "./harness.js";

/**
 * Waking a run whose process died. A dead process leaves a session stored as `running` with no live
 * lease and a journal that stops mid-run; each case writes such a journal by hand (what a kill -9
 * at that point leaves), then a runtime resumes it. The real-process kills are in the CLI fault tests.
 */
export function resumeSuite(makeHarness: MakeHarness): void {
  let h: StoreHarness;
  let cwd: string;
  let appended: string[];
  /** The idempotency key each run of a tool was given, in order (undefined when it had none). */
  let keys: Array<string | undefined>;
  /** The last two entries of the session's path as each run of `append` began: what a crash then leaves. */
  let storedAtStart: string[][];
  const runtimes: Runtime[] = [];

  /** A tool with an effect: running it twice would show as two lines. Not safe to repeat (the default). */
  const appendTool = defineTool({
    name: "append",
    description: "Appends a line to the log.",
    input: z.object({ line: z.string() }),
    async execute(input, ctx) {
      const path = await h.store.getActivePath(ctx.sessionId);
      storedAtStart.push(
        path.slice(-2).map((e) => (e.type === "message" ? e.message.role : e.type === "custom" ? e.customType : e.type)),
      );
      appended.push(input.line);
      keys.push(ctx.idempotencyKey);
      return { output: `appended ${input.line}` };
    },
  });

  /** A tool with an effect that it makes harmless to repeat by the key it is given. */
  const upsertTool = defineTool({
    name: "upsert",
    description: "Stores a line under the call's key.",
    input: z.object({ line: z.string() }),
    effects: "idempotent-by-key",
    async execute(input, ctx) {
      keys.push(ctx.idempotencyKey);
      return { output: `stored ${input.line}` };
    },
  });

  function runtimeFor(model: ScriptedModel): Runtime {
    const runtime = createRuntime({
      store: h.store,
      model,
      cwd,
      env: {},
      blobs: new MemoryBlobStore(),
      tools: [readTool(), appendTool, upsertTool, defineGoalTool()],
      clock: { now: () => Date.now(), sleep: async () => {} },
    });
    runtimes.push(runtime);
    return runtime;
  }

  /**
   * A session as a process killed mid-run leaves it: stored running, nobody holding it, these messages
   * and start records (`{ started }`, written as the run writes one before a call with effects starts).
   */
  async function cutOff(messages: Array<MessageInput | ToolStarted>, agentId = "build"): Promise<string> {
    const { id } = await h.store.createSession({ status: "running", agentId, cwd });
    for (const m of messages) {
      if ("callId" in m) await h.store.appendEntry(id, { type: "custom", customType: TOOL_STARTED_ENTRY_TYPE, data: m });
      else await h.store.appendMessage(id, m);
    }
    expect((await h.store.getSession(id))?.status).toBe("interrupted");
    return id;
  }

  async function finish(handle: RunHandle) {
    const events: RunEvent[] = [];
    for await (const e of handle) events.push(e);
    return { events, result: await handle.result };
  }

  const user = userMessage;
  const answer = (parts: MessageInput["content"]) => answerMessage(parts);
  const call = toolCallPart;
  const result = toolResultMessage;
  const toolOutputs = (path: Entry[]) =>
    path.flatMap((e) =>
      e.type === "message" && e.message.role === "tool"
        ? e.message.content.map((p) => `${p.toolCallId} ${p.toolName}: ${(p.output as { value: string }).value}`)
        : [],
    );

  describe("runtime.resume", () => {
    // Inside the describe: a harness for these tests only, not for every test of the conformance run.
    beforeEach(async () => {
      h = await makeHarness();
      cwd = realpathSync(mkdtempSync(join(tmpdir(), "arbor-resume-")));
      writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\n");
      appended = [];
      keys = [];
      storedAtStart = [];
    });
    afterEach(async () => {
      for (const r of runtimes.splice(0)) await r.close();
      await h.cleanup();
      rmSync(cwd, { recursive: true, force: true });
    });

    it("re-runs an unanswered call of a safe tool, answers one recorded started as interrupted, and goes on", async () => {
      const id = await cutOff([
        user("read the notes and log them"),
        answer([
          { type: "text", text: "Reading." },
          call("c1", "read", { path: "notes.txt" }),
          call("c2", "append", { line: "x" }),
        ]),
        { callId: "c2", tool: "append", idempotencyKey: "k-c2" },
      ]);
      const model = scriptedModel([[text("Done."), usage({ inputTokens: 7, outputTokens: 3 })]]);
      const { events, result: res } = await finish(runtimeFor(model).runs.resume(id));
      expect(res).toMatchObject({ status: "done", stopReason: "finished", text: "Done.", steps: 2 });
      expect(res.usage).toMatchObject({ input: 17, output: 8 });
      expect(appended).toEqual([]);
      const path = await h.store.getActivePath(id);
      const outputs = toolOutputs(path);
      expect(outputs).toHaveLength(2);
      expect(outputs).toContain(`c2 append: ${RESUMED_INTERRUPTED_OUTPUT}`);
      expect(outputs.find((o) => o.startsWith("c1 read:"))).toContain("alpha");
      // The model read both results, each once, right after its call.
      const prompt = JSON.stringify(model.calls[0]?.prompt);
      expect(prompt).toContain("alpha");
      expect(prompt).toContain("It was not run again");
      expect(prompt).not.toContain("[Tool execution was interrupted]");
      expect(
        events
          .filter((e) => e.type === "tool_end")
          .map((e) => (e as { call_id: string }).call_id)
          .sort(),
      ).toEqual(["c1", "c2"]);
      expect((await h.store.getSession(id))?.status).toBe("completed");
      // Nothing to take up any more.
      const again = await finish(runtimeFor(model).runs.resume(id));
      expect(again.result.error?.code).toBe("session_not_interrupted");
    });

    it("a step stores its answer and its call's start record in one append, before the call runs", async () => {
      const { id } = await h.store.createSession({ cwd });
      const appendEntries = vi.spyOn(h.store, "appendEntries");
      const model = scriptedModel([[toolCall("append", { line: "x" }, { id: "c1" })], [text("Logged.")]]);
      const { result } = await finish(runtimeFor(model).runs.run({ sessionId: id, prompt: "log x" }));
      expect(result).toMatchObject({ status: "done", text: "Logged." });
      expect(storedAtStart).toEqual([["assistant", TOOL_STARTED_ENTRY_TYPE]]);
      expect(appendEntries.mock.calls.map(([, entries]) => entries.map((e) => e.type))).toEqual([["message", "custom"]]);
    });

    it("runs an at-most-once call that had not started, once, and records its start first", async () => {
      const id = await cutOff([user("log it"), answer([call("c1", "append", { line: "x" })])]);
      const model = scriptedModel([[text("Logged.")]]);
      expect((await finish(runtimeFor(model).runs.resume(id))).result).toMatchObject({ status: "done", text: "Logged." });
      expect(appended).toEqual(["x"]);
      expect(keys).toEqual([idempotencyKeyOf(id, "c1")]);
      const path = await h.store.getActivePath(id);
      const started = path.findIndex((e) => e.type === "custom" && e.customType === TOOL_STARTED_ENTRY_TYPE);
      const answered = path.findIndex((e) => e.type === "message" && e.message.role === "tool");
      expect(path[started]).toMatchObject({ data: { callId: "c1", tool: "append", idempotencyKey: keys[0] } });
      expect(started).toBeLessThan(answered);
    });

    it("re-runs an idempotent-by-key call recorded started with the key it started with", async () => {
      const id = await cutOff([
        user("store it"),
        answer([call("c1", "upsert", { line: "x" }), call("c2", "read", { path: "notes.txt" })]),
        { callId: "c1", tool: "upsert", idempotencyKey: "key-of-the-first-run" },
      ]);
      const model = scriptedModel([[text("Stored.")]]);
      expect((await finish(runtimeFor(model).runs.resume(id))).result).toMatchObject({ status: "done", text: "Stored." });
      expect(keys).toEqual(["key-of-the-first-run"]);
      expect(toolOutputs(await h.store.getActivePath(id)).sort()).toEqual([
        expect.stringContaining("c1 upsert: stored x"),
        expect.stringContaining("c2 read:"),
      ]);
    });

    it("records no start for a tool without effects", async () => {
      const id = await cutOff([user("read")]);
      const model = scriptedModel([[toolCall("read", { path: "notes.txt" })], [text("Read.")]]);
      expect((await finish(runtimeFor(model).runs.resume(id))).result.status).toBe("done");
      const path = await h.store.getActivePath(id);
      expect(path.some((e) => e.type === "custom" && e.customType === TOOL_STARTED_ENTRY_TYPE)).toBe(false);
    });

    it("answers a user message the model never answered, and keeps a cut-short answer", async () => {
      const id = await cutOff([user("say hi")]);
      const model = scriptedModel([[text("hi")]]);
      expect((await finish(runtimeFor(model).runs.resume(id))).result).toMatchObject({ status: "done", text: "hi", steps: 1 });
      const msgs = (await h.store.getActivePath(id)).filter((e) => e.type === "message");
      expect(msgs.map((e) => e.message.role)).toEqual(["user", "assistant"]);

      const partial = await cutOff([
        user("tell a story"),
        { ...answer([{ type: "text", text: "Once upon" }]), finishReason: "aborted", error: { code: "aborted", message: "cut" } },
      ]);
      const next = scriptedModel([[text(" a time.")]]);
      expect((await finish(runtimeFor(next).runs.resume(partial))).result).toMatchObject({ status: "done", steps: 2 });
      expect(JSON.stringify(next.calls[0]?.prompt)).toContain("Once upon");
      const texts = (await h.store.getActivePath(partial)).flatMap((e) =>
        e.type === "message" && e.message.role === "assistant"
          ? [e.message.content.map((p) => ("text" in p ? p.text : "")).join("")]
          : [],
      );
      expect(texts).toEqual(["Once upon", " a time."]);
    });

    it("goes on as the agent that was running", async () => {
      const id = await cutOff([user("plan the work")], "plan");
      const model = scriptedModel([[text("A plan.")]]);
      expect((await finish(runtimeFor(model).runs.resume(id))).result.status).toBe("done");
      const last = (await h.store.getActivePath(id)).at(-1);
      expect(last?.type === "message" && last.message.role === "assistant" && last.message.agent).toBe("plan");
    });

    it("ends a run whose last answer was complete without calling the model", async () => {
      const id = await cutOff([user("hi"), { ...answer([{ type: "text", text: "Hello." }]), finishReason: "stop" }]);
      const model = scriptedModel([]);
      const { result: res } = await finish(runtimeFor(model).runs.resume(id));
      expect(res).toMatchObject({ status: "done", stopReason: "finished", text: "Hello.", steps: 1 });
      expect(model.callCount).toBe(0);
      expect((await h.store.getSession(id))?.status).toBe("completed");
    });

    it("ends, as failed, a session whose run died before its prompt was recorded, so nothing wakes it again", async () => {
      const id = await cutOff([]);
      const model = scriptedModel([]);
      const { result: res } = await finish(runtimeFor(model).runs.resume(id));
      expect(res.status).toBe("error");
      expect(res.error?.message).toContain("before its prompt was recorded");
      expect(model.callCount).toBe(0);
      expect(await h.store.listEntries(id)).toHaveLength(0);
      expect((await h.store.getSession(id))?.status).toBe("failed");
    });

    it("keeps the goals: the plan in force and the goal in focus continue from the journal", async () => {
      // A whole run, then its journal up to the third answer copied into a session left running:
      // exactly what a kill while that answer's tools ran leaves behind.
      const first = scriptedModel([
        [toolCall("goal", { add: "Read the notes, Log them" }, { id: "g1" })],
        [toolCall("goal", { focus: "1" }, { id: "g2" })],
        [toolCall("read", { path: "notes.txt" }, { id: "r1" }), toolCall("append", { line: "n" }, { id: "a1" })],
        [text("unused")],
      ]);
      const whole = await finish(runtimeFor(first).runs.run({ prompt: "log the notes", cwd }));
      expect(whole.result.status).toBe("done");
      const path = await h.store.getActivePath(whole.result.sessionId);
      // Cut after the read's result and the append's start record, whichever came last.
      const cut = Math.max(
        path.findIndex((e) => e.type === "message" && JSON.stringify(e.message).includes('"toolCallId":"r1"')),
        path.findIndex(
          (e) => e.type === "custom" && e.customType === TOOL_STARTED_ENTRY_TYPE && JSON.stringify(e.data).includes('"a1"'),
        ),
      );
      const { id } = await h.store.createSession({ status: "running", agentId: "build", cwd });
      for (const e of path.slice(0, cut + 1)) {
        if (e.type === "message") await h.store.appendMessage(id, e.message);
        else if (e.type === "custom") await h.store.appendEntry(id, { type: "custom", customType: e.customType, data: e.data });
      }
      appended = [];

      const model = scriptedModel([[text("Logged.")]]);
      const { result: res } = await finish(runtimeFor(model).runs.resume(id));
      expect(res).toMatchObject({ status: "done", steps: 4 });
      expect(appended).toEqual([]);
      // The plan is in the resumed call's system prompt, and the new messages belong to goal 1.
      const system = JSON.stringify(model.calls[0]?.prompt[0]);
      expect(system).toContain("Read the notes");
      const after = await h.store.getActivePath(id);
      const tail = after.slice(cut + 1).flatMap((e) => (e.type === "message" ? [e.message] : []));
      expect(tail.map((m) => `${m.role}:${m.goalId}`)).toEqual(["tool:1", "tool:1", "assistant:1"]);
      expect(goalTreeOnPath(after)?.currentId).toBe("1");
    });

    it("keeps counting steps against maxTurns from where the run was", async () => {
      const id = await cutOff([
        user("log three lines"),
        answer([call("a1", "append", { line: "1" })]),
        result("a1", "append", "appended 1"),
        answer([call("a2", "append", { line: "2" })]),
        result("a2", "append", "appended 2"),
      ]);
      const model = scriptedModel([[text("third")], [text("never")]]);
      const { result: res } = await finish(runtimeFor(model).runs.resume(id, { maxTurns: 3 }));
      expect(res).toMatchObject({ status: "done", stopReason: "max_turns", steps: 3 });
      expect(model.callCount).toBe(1);
      // The last allowed step is offered no tools.
      expect(model.calls[0]?.options.tools).toBeUndefined();
    });

    it("refuses, writing nothing, an unknown session, one not interrupted, and one a live process holds", async () => {
      const model = scriptedModel([]);
      const runtime = runtimeFor(model);
      const unknown = await finish(runtime.runs.resume("no-such-session"));
      expect(unknown.result.error?.code).toBe("session_not_found");
      expect(unknown.events.at(-1)).toMatchObject({ type: "error", code: "session_not_found" });

      const { id: done } = await h.store.createSession({ status: "completed" });
      await h.store.appendMessage(done, user("hi"));
      const notCut = await finish(runtime.runs.resume(done));
      expect(notCut.result.error?.code).toBe("session_not_interrupted");
      expect(notCut.result.error?.message).toContain("completed");

      const id = await cutOff([user("hi")]);
      const other = await h.another();
      const lease = await other.acquireLease(id, "another process");
      const busy = await finish(runtime.runs.resume(id));
      expect(busy.result.error?.code).toBe("session_busy");
      expect(busy.result.error?.message).toContain("another process");
      await lease.release();
      for (const s of [done, id]) expect(await h.store.listEntries(s)).toHaveLength(1);
      expect(model.callCount).toBe(0);
      expect((await h.store.getSession(id))?.status).toBe("interrupted");
    });
  });
}
