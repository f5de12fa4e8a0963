import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { error, hang, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { WatchHub } from "../../src/events/watch-hub.js";
import { goalTreeOnPath } from "../../src/goal/goal-path.js";
import type { Entry } from "../../src/model/entry.js";
import { parentTraceId } from "../../src/model/ids.js";
import type { SessionMeta } from "../../src/model/session.js";
import { openStore } from "../../src/store/open.js";
import { SubTraceIds } from "../../src/subagents/sub-trace-ids.js";
import { branchModels, collect, harness, tempDir } from "./harness.js";

const SUB_ID = /^[0-9a-f-]{36}@explore-\d{14}-\d{3}$/;

async function subTraces(store: Awaited<ReturnType<typeof openStore>>, parent: string): Promise<SessionMeta[]> {
  return (await store.listSessions({ parentSessionId: parent, limit: 100 })).sessions;
}

function entriesOf<T extends Entry["type"]>(path: readonly Entry[], type: T): Extract<Entry, { type: T }>[] {
  return path.filter((e): e is Extract<Entry, { type: T }> => e.type === type);
}

describe("explore and delegate", () => {
  it("explores two branches in parallel as linked sub-traces and records the agent_call goal", async () => {
    const main = scriptedModel([
      [toolCall("goal", { add: "Compare the two auth designs" })],
      [toolCall("goal", { focus: "1" })],
      [toolCall("explore", { branches: ["look at JWT", "look at sessions"] }, { id: "ex1" })],
      [text("JWT wins.")],
    ]);
    const jwt = scriptedModel([
      [toolCall("list", {})],
      [text("JWT: stateless, fine here."), usage({ inputTokens: 30, outputTokens: 10 })],
    ]);
    const sessions = scriptedModel([[text("Sessions: need a store.")]]);
    const store = await openStore(join(tempDir(), "store"));
    const hub = new WatchHub(store);
    const { runtime } = await harness({
      store,
      watch: hub,
      model: branchModels(main, { "look at JWT": jwt, "look at sessions": sessions }),
    });
    const { result } = await collect(runtime.runs.run({ prompt: "main: pick an auth design" }));
    expect(result.status).toBe("done");
    expect(result.text).toBe("JWT wins.");

    const subs = await subTraces(store, result.sessionId);
    expect(subs).toHaveLength(2);
    for (const sub of subs) {
      expect(sub.id).toMatch(SUB_ID);
      expect(parentTraceId(sub.id)).toBe(result.sessionId);
      expect(sub).toMatchObject({
        agentType: "explore",
        parentSessionId: result.sessionId,
        parentGoalId: "1",
        status: "completed",
      });
      expect(sub.context).toMatchObject({ maxTurns: 20, allowedTools: ["read", "grep", "glob", "list", "goal"] });
    }
    expect(subs.map((s) => s.task).sort()).toEqual(["look at JWT", "look at sessions"]);

    // Without background each branch starts from the parent's conversation, minus the pending call.
    const jwtPrompt = JSON.stringify(jwt.calls[0]!.prompt);
    expect(jwtPrompt).toContain("main: pick an auth design");
    expect(jwtPrompt).not.toContain('"toolName":"explore"');
    // The explore agent offers read-only tools only.
    expect((jwt.calls[0]!.options.tools ?? []).map((t) => t.name).sort()).toEqual(["glob", "goal", "grep", "list", "read"]);

    const path = await store.getActivePath(result.sessionId);
    const toolResult = path.find(
      (e) => e.type === "message" && e.message.role === "tool" && e.message.content[0]?.toolName === "explore",
    );
    const output = JSON.stringify(toolResult);
    expect(output).toContain("### look at JWT");
    expect(output).toContain("JWT: stateless, fine here.");
    expect(output).toContain("Sessions: need a store.");

    const tree = goalTreeOnPath(path)!;
    const goal = tree.goals[0]!;
    expect(goal).toMatchObject({ type: "agent_call", agentCallMode: "explore", status: "in_progress" });
    expect(goal.subTraceIds?.sort()).toEqual(subs.map((s) => s.id).sort());
    const jwtId = subs.find((s) => s.task === "look at JWT")!.id;
    expect(goal.subTraceMetadata?.[jwtId]).toMatchObject({
      task: "look at JWT",
      status: "completed",
      summary: "JWT: stateless, fine here.",
      lastMessage: { role: "assistant", content: "JWT: stateless, fine here." },
      stats: { messageCount: 4, totalTokens: 40 },
    });
    // The sub-trace's tokens roll into the calling goal's cumulative stats, not its own.
    expect(goal.cumulativeStats.totalTokens).toBeGreaterThanOrEqual(40);

    const [batch] = entriesOf(path, "subagent_batch");
    expect(batch).toMatchObject({ mode: "explore", goalId: "1" });
    expect(batch!.tasks.map((t) => t.task)).toEqual(["look at JWT", "look at sessions"]);
    const results = entriesOf(path, "subagent_result");
    expect(results.map((r) => r.status)).toEqual(["completed", "completed"]);
    const jwtResult = results.find((r) => r.subSessionId === jwtId)!;
    expect(jwtResult.metadata.subagentProjection).toMatchObject({
      status: "completed",
      diagnostics: { selectedSource: "final_text", fallbackUsed: false },
    });
    // The sources the branch offered: a final text and a last assistant message, and its status.
    expect(jwtResult.metadata.subagentProjection?.diagnostics.inputSources).toEqual([
      "final_text",
      "last_assistant_message",
      "status",
    ]);
    expect(jwtResult.metadata.toolRuntimeRoutes).toEqual([expect.objectContaining({ tool: "list", calls: 1, errors: 0 })]);
    expect(jwtResult.metadata.processEvents.length).toBeGreaterThan(0);

    // The snapshot projects the batch by its id, sums its tools, and carries the goal tree in its runtime context.
    const snap = await store.getSnapshot(result.sessionId);
    expect(snap.subagentRuntimeByBatchId[batch!.batchId]).toMatchObject({
      batchEntryId: batch!.id,
      mode: "explore",
      goalId: "1",
      tasks: [{ task: "look at JWT" }, { task: "look at sessions" }],
    });
    const projected = snap.subagentRuntimeByBatchId[batch!.batchId]!.results.find((r) => r.subSessionId === jwtId);
    expect(projected).toMatchObject({
      entryId: jwtResult.id,
      status: "completed",
      diagnostics: { selectedSource: "final_text" },
    });
    expect(projected!.processEvents).toBe(jwtResult.metadata.processEvents.length);
    expect(snap.toolRuntimeRoutesByBatchId[batch!.batchId]).toEqual([
      expect.objectContaining({ tool: "list", calls: 1, errors: 0 }),
    ]);
    expect(snap.runtimeContext.goalTree?.goals[0]).toMatchObject({ type: "agent_call", subTraceIds: goal.subTraceIds });

    // The parent's watchers heard the sub-traces: started, their messages, completed.
    await hub.flush();
    const events = await store.listEvents(result.sessionId);
    const fromSub = events.filter((e) => (e.data as { trace_id: string }).trace_id === jwtId).map((e) => e.type);
    expect(fromSub[0]).toBe("sub_trace_started");
    expect(fromSub).toContain("message_added");
    expect(fromSub.at(-1)).toBe("sub_trace_completed");
    // And the sub-trace's own log opens with its announcement (published once its session exists).
    const own = (await store.listEvents(jwtId)).map((e) => e.type);
    expect(own[0]).toBe("sub_trace_started");
    expect(own.at(-1)).toBe("sub_trace_completed");
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("a branch that fails, times out or runs out of budget returns what it has with its status", async () => {
    const main = scriptedModel([
      [toolCall("explore", { branches: ["ok", "broken", "slow"], background: "Repo: a tiny parser." })],
      [text("done")],
    ]);
    const ok = scriptedModel([[text("fine")]]);
    const slow = scriptedModel([[hang()]]);
    // The failing branch first says something, then calls list and fails on its second step.
    const brokenFirst = scriptedModel([
      [text("partial finding"), toolCall("list", {})],
      [error(400, { message: "bad request" })],
    ]);
    const { runtime, store } = await harness({
      model: branchModels(main, { ok, broken: brokenFirst, slow }),
      // Long enough for the branches that finish to do so on a loaded machine; the hanging one always times out.
      subAgents: { explore: { timeout: 2 } },
    });
    const { result } = await collect(runtime.runs.run({ prompt: "main: investigate" }));
    expect(result.status).toBe("done");
    const path = await store.getActivePath(result.sessionId);
    const byTask = new Map(
      entriesOf(path, "subagent_result").map((r) => [
        (entriesOf(path, "subagent_batch")[0]!.tasks.find((t) => t.subSessionId === r.subSessionId)?.task ?? "") as string,
        r,
      ]),
    );
    expect(byTask.get("ok")).toMatchObject({ status: "completed", summary: "fine" });
    expect(byTask.get("broken")).toMatchObject({ status: "failed" });
    expect(byTask.get("broken")!.summary).toContain("[failed] partial finding");
    expect(byTask.get("broken")!.metadata.subagentProjection?.diagnostics).toMatchObject({ selectedSource: "final_text" });
    expect(byTask.get("slow")).toMatchObject({ status: "timeout" });
    // The slow branch never said anything: its summary falls back to its status.
    expect(byTask.get("slow")!.summary).toMatch(/^\[timeout\] /);
    expect(byTask.get("slow")!.metadata.subagentProjection?.diagnostics).toMatchObject({
      selectedSource: "status",
      // It offered nothing but its status, and says so.
      inputSources: ["status"],
      fallbackUsed: true,
    });
    // With background the branch starts from it, not from the parent's conversation.
    const okPrompt = JSON.stringify(ok.calls[0]!.prompt);
    expect(okPrompt).toContain("Background:\\nRepo: a tiny parser.");
    expect(okPrompt).not.toContain("main: investigate");
    const subs = await subTraces(store, result.sessionId);
    expect(subs.map((s) => s.status).sort()).toEqual(["aborted", "completed", "failed"]);
  });

  it("records a branch's last assistant message when its session ends on something else", async () => {
    const main = scriptedModel([
      [toolCall("goal", { add: "Check the parser" })],
      [toolCall("goal", { focus: "1" })],
      [toolCall("explore", { branches: ["look"] })],
      [text("done")],
    ]);
    // The branch speaks, calls a tool, and fails on its next step: its session ends past its last message.
    const look = scriptedModel([[text("first finding"), toolCall("list", {})], [error(400, { message: "bad request" })]]);
    const { runtime, store } = await harness({ model: branchModels(main, { look }) });
    const { result } = await collect(runtime.runs.run({ prompt: "main: go" }));
    const [sub] = await subTraces(store, result.sessionId);
    const subPath = await store.getActivePath(sub!.id);
    expect(subPath.at(-1)?.type).not.toBe("message");
    const goal = goalTreeOnPath(await store.getActivePath(result.sessionId))!.goals[0]!;
    expect(goal.subTraceMetadata?.[sub!.id]).toMatchObject({
      status: "failed",
      lastMessage: { role: "assistant", content: "first finding" },
    });
  });

  it("enforces turn, token and tool-call budgets", async () => {
    const main = scriptedModel([[toolCall("explore", { branches: ["turns", "tokens", "calls"] })], [text("done")]]);
    const loop = (n: number) => Array.from({ length: n }, (_, i) => [toolCall("list", {}, { id: `c${i}` })]);
    const turns = scriptedModel(loop(5));
    const tokens = scriptedModel([[toolCall("list", {}), usage({ inputTokens: 80, outputTokens: 30 })], ...loop(4)]);
    const calls = scriptedModel([
      [toolCall("list", {}, { id: "a" }), toolCall("glob", { pattern: "*" }, { id: "b" })],
      ...loop(4),
    ]);
    const { runtime, store } = await harness({
      model: branchModels(main, { turns, tokens, calls }),
      subAgents: { explore: { maxTurns: 3, maxTokens: 100, maxToolCalls: 1 } },
    });
    const { result } = await collect(runtime.runs.run({ prompt: "main: go" }));
    const path = await store.getActivePath(result.sessionId);
    const statuses = entriesOf(path, "subagent_result").map((r) => r.status);
    // Every branch stops well before its script ends, each on a budget.
    expect(statuses.every((s) => s === "budget" || s === "max_turns")).toBe(true);
    expect(turns.callCount).toBeLessThanOrEqual(3);
    expect(tokens.callCount).toBe(1);
    expect(calls.callCount).toBe(1);
  });

  it("delegate runs one sub-trace with the full tool set; aborting the parent aborts it", async () => {
    const main = scriptedModel([[toolCall("delegate", { task: "write the file" })], [text("never")]]);
    let started!: () => void;
    const branchStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const worker = scriptedModel([[hang()]]);
    const watching: LanguageModelV4 = {
      ...worker,
      specificationVersion: "v4",
      provider: worker.provider,
      modelId: worker.modelId,
      supportedUrls: {},
      doStream: (options) => {
        started();
        return worker.doStream(options);
      },
      doGenerate: (options) => worker.doGenerate(options),
    };
    const { runtime, store } = await harness({ model: branchModels(main, { "write the file": watching }) });
    const handle = runtime.runs.run({ prompt: "main: delegate it" });
    const done = collect(handle);
    await branchStarted;
    const tools = (worker.calls[0]!.options.tools ?? []).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["write", "edit", "bash", "explore", "delegate"]));
    handle.abort();
    const { result } = await done;
    expect(result.status).toBe("aborted");
    const [sub] = await subTraces(store, result.sessionId);
    expect(sub).toMatchObject({ agentType: "delegate", status: "aborted", context: { maxTurns: 50 } });
    expect(sub!.id).toMatch(/@delegate-\d{14}-001$/);
  });
});

describe("sub-trace ids", () => {
  it("count up within a parent, mode and second, and nest", () => {
    const ids = new SubTraceIds();
    const t = new Date("2026-02-04T22:00:12.300Z");
    const parent = "2f8d3a1c-4b6e-4f9a-8c2d-1e5b7a9f3c4d";
    expect(ids.next(parent, "explore", t)).toBe(`${parent}@explore-20260204220012-001`);
    expect(ids.next(parent, "explore", new Date("2026-02-04T22:00:12.900Z"))).toBe(`${parent}@explore-20260204220012-002`);
    expect(ids.next(parent, "delegate", t)).toBe(`${parent}@delegate-20260204220012-001`);
    expect(ids.next(parent, "explore", new Date("2026-02-04T22:00:13.000Z"))).toBe(`${parent}@explore-20260204220013-001`);
    const child = `${parent}@explore-20260204220012-001`;
    const nested = ids.next(child, "delegate", t);
    expect(nested).toBe(`${child}@delegate-20260204220012-001`);
    expect(parentTraceId(nested)).toBe(child);
  });
});
