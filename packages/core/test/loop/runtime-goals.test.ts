import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { WatchHub } from "../../src/events/watch-hub.js";
import { goalTreeOnPath } from "../../src/goal/goal-path.js";
import type { Entry } from "../../src/model/entry.js";
import type { Message } from "../../src/model/message.js";
import { buildContext, contextMessages } from "../../src/session/context.js";
import { GOAL_COMPACTION_ENTRY_TYPE } from "../../src/session/goal-collapse.js";
import type { StoredEvent } from "../../src/store/event-records.js";
import { openStore } from "../../src/store/open.js";
import { collect, harness, tempDir } from "./harness.js";

function messages(path: readonly Entry[]): Message[] {
  return path.flatMap((e) => (e.type === "message" ? [e.message] : []));
}

function systemOf(prompt: readonly { role: string; content: unknown }[]): string {
  const first = prompt[0];
  return first?.role === "system" ? String(first.content) : "";
}

function promptText(prompt: readonly { role: string; content: unknown }[]): string {
  return JSON.stringify(prompt.slice(1));
}

describe("the goal tool in the loop", () => {
  it("tags messages with the goal in focus, puts the plan in every call and records the tree on the path", async () => {
    const model = scriptedModel([
      [toolCall("goal", { add: "Read the code, Fix the bug", reason: "find it, make it pass" }, { id: "g1" })],
      [toolCall("goal", { focus: "1" }, { id: "g2" })],
      [toolCall("list", {}, { id: "l1" })],
      [toolCall("goal", { done: "The bug is in parse.ts", focus: "2" }, { id: "g3" })],
      [text("Fixed.")],
    ]);
    const { runtime, store } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "Fix the parser" }));
    expect(result.status).toBe("done");

    const path = await store.getActivePath(result.sessionId);
    const msgs = messages(path);
    // The user message and the first two steps came before any goal was in focus.
    expect(msgs.slice(0, 5).map((m) => m.goalId)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    // Step 3 (list) ran under goal 1; step 4 (goal done) too; the last step under goal 2.
    expect(msgs.slice(5).map((m) => `${m.role}:${m.goalId}`)).toEqual([
      "assistant:1",
      "tool:1",
      "assistant:1",
      "tool:1",
      "assistant:2",
    ]);

    const tree = goalTreeOnPath(path)!;
    expect(tree.mission).toBe("Fix the parser");
    expect(tree.currentId).toBe("2");
    expect(tree.goals.map((g) => [g.id, g.status, g.summary])).toEqual([
      ["1", "completed", "The bug is in parse.ts"],
      ["2", "in_progress", undefined],
    ]);
    expect(tree.goals[0]!.selfStats).toMatchObject({ messageCount: 4, preview: "list → goal" });
    expect(tree.goals[1]!.selfStats.messageCount).toBe(1);

    // The plan is the end of the system prompt from the call after it was made.
    expect(systemOf(model.calls[0]!.prompt)).not.toContain("## Current Plan");
    expect(systemOf(model.calls[1]!.prompt)).toMatch(/## Current Plan[\s\S]*\[ \] 1\. Read the code/);
    expect(systemOf(model.calls[2]!.prompt)).toMatch(/\[→\] 1\. Read the code ← current/);
    expect(systemOf(model.calls[4]!.prompt)).toMatch(/\[✓\] 1\. Read the code\n→ The bug is in parse\.ts/);

    // Goal compaction: once goal 1 is done its steps are one summary in the context.
    const last = promptText(model.calls[4]!.prompt);
    expect(last).not.toContain('"toolName":"list"');
    expect(last).toContain("Read the code");
    expect(last).toContain("was completed; its messages are summarized here");
    expect(path.filter((e) => e.type === "custom" && e.customType === GOAL_COMPACTION_ENTRY_TYPE)).toHaveLength(1);
    // Nothing stored was removed: the list call is still on the path.
    expect(JSON.stringify(msgs)).toContain('"toolName":"list"');
  });

  it("the file store keeps goal.json as a readable copy of the latest plan", async () => {
    const root = tempDir();
    const store = await openStore(join(root, "store"));
    const model = scriptedModel([[toolCall("goal", { add: "One, Two" })], [toolCall("goal", { focus: "2" })], [text("ok")]]);
    const { runtime } = await harness({ model, store });
    const { result } = await collect(runtime.runs.run({ prompt: "two things" }));
    const file = readdirSync(root, { recursive: true, encoding: "utf8" }).find(
      (f) => f.includes(result.sessionId) && f.endsWith("goal.json"),
    );
    expect(file).toBeDefined();
    const cached = JSON.parse(readFileSync(join(root, file!), "utf8"));
    expect(cached.tree).toMatchObject({ mission: "two things", currentId: "2" });
    expect(cached.leafEntryId).toEqual(expect.any(String));
  });

  it("switching to an earlier branch restores the plan as it was there", async () => {
    const model = scriptedModel([
      [toolCall("goal", { add: "A, B" })],
      [toolCall("goal", { focus: "1" })],
      [toolCall("goal", { done: "A done", focus: "2" })],
      [text("ok")],
    ]);
    const { runtime, store } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "do A then B" }));
    const path = await store.getActivePath(result.sessionId);
    expect(goalTreeOnPath(path)!.currentId).toBe("2");
    const focusResult = path.filter((e) => e.type === "message" && e.message.role === "tool")[1]!;
    await runtime.sessions.switchLeaf(result.sessionId, focusResult.id);
    const earlier = goalTreeOnPath(await store.getActivePath(result.sessionId))!;
    expect(earlier.currentId).toBe("1");
    expect(earlier.goals.map((g) => g.status)).toEqual(["in_progress", "pending"]);
  });

  it("an abandoned goal collapses to its reason, carried into the first message of its replacement", async () => {
    const model = scriptedModel([
      [toolCall("goal", { add: "Analyse, Approach A, Test" })],
      [toolCall("goal", { focus: "2" })],
      [toolCall("read", { path: "missing.txt" })],
      [toolCall("goal", { abandon: "A needs a library we cannot install", add: "Approach B", after: "2" })],
      [toolCall("goal", { focus: "2" })],
      [toolCall("list", {})],
      [text("done")],
    ]);
    const { runtime, store } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "build it" }));
    expect(result.status).toBe("done");
    const path = await store.getActivePath(result.sessionId);
    const tree = goalTreeOnPath(path)!;
    expect(tree.goals.map((g) => `${g.id}:${g.status}`)).toEqual(["1:pending", "2:abandoned", "4:in_progress", "3:pending"]);

    const context = contextMessages(buildContext(path));
    const texts = context.map((m) => JSON.stringify(m.content));
    const summaryAt = texts.findIndex((t) => t.includes("was abandoned; its messages are summarized here"));
    const carriedAt = texts.findIndex((t) => t.includes("This goal replaces one that was given up"));
    expect(summaryAt).toBeGreaterThan(0);
    expect(carriedAt).toBeGreaterThan(summaryAt);
    expect(texts[carriedAt]).toContain("A needs a library we cannot install");
    // The carried note sits right before the replacement goal's first message.
    expect(context[carriedAt + 1]).toMatchObject({ role: "assistant", goalId: "4" });
    // The read of goal 2 is gone from the context; goal 4's list call is there.
    expect(texts.some((t) => t.includes("missing.txt"))).toBe(false);
    expect(texts.some((t) => t.includes('"toolName":"list"'))).toBe(true);
  });

  it("publishes goal_added, goal_updated and message_added with the goals they changed", async () => {
    const model = scriptedModel([
      [toolCall("goal", { add: "Parent" })],
      [toolCall("goal", { focus: "1" })],
      [toolCall("goal", { add: "Child", under: "1" })],
      [toolCall("goal", { focus: "1.1" })],
      [toolCall("list", {})],
      [toolCall("goal", { done: "child done" })],
      [text("end")],
    ]);
    const store = await openStore(join(tempDir(), "store"));
    const hub = new WatchHub(store);
    const { runtime } = await harness({ model, store, watch: hub });
    const { result } = await collect(runtime.runs.run({ prompt: "plan it" }));
    await hub.flush();
    const events: StoredEvent[] = await store.listEvents(result.sessionId);
    const names = events.map((e) => e.type);
    expect(names.filter((n) => n === "goal_added")).toHaveLength(2);
    const cascade = events.findLast((e) => e.type === "goal_updated" && (e.data as { goal_id: string }).goal_id === "1")
      ?.data as { updates: Record<string, unknown>; affected_goals: Array<{ goal_id: string }> };
    expect(cascade.updates.status).toBe("completed");
    const listStep = events.find(
      (e) =>
        e.type === "message_added" &&
        (e.data as { message: { goal_id?: string; description?: string } }).message.description === "tool call: list",
    )?.data as { affected_goals: Array<{ goal_id: string; self_stats?: { message_count: number } }> };
    expect(listStep.affected_goals.map((g) => g.goal_id)).toEqual(["2", "1"]);
    expect(listStep.affected_goals[0]!.self_stats?.message_count).toBe(1);
    // Every logged event speaks the trace model's names: no camelCase field of core's goal reaches a watcher.
    const added = events.find((e) => e.type === "goal_added")?.data as { goal: Record<string, unknown>; parent_id: null };
    expect(added.goal).toMatchObject({ id: "1", parent_id: null, self_stats: { message_count: 0 } });
    expect(cascade.updates).toHaveProperty("cumulative_stats");
    for (const e of events) {
      expect(JSON.stringify(e.data)).not.toMatch(
        /"(selfStats|cumulativeStats|messageCount|parentId|subTraceIds|agentCallMode|currentId)"/,
      );
    }
    // The `connected` event carries the tree at the leaf.
    const sent: unknown[] = [];
    const stop = await hub.watch(result.sessionId, 0, (m) => sent.push(m));
    stop();
    expect(sent[0]).toMatchObject({ event: "connected", goal_tree: { mission: "plan it", current_id: null } });
    expect((sent[0] as { goal_tree: { goals: unknown[] } }).goal_tree.goals[0]).toMatchObject({
      parent_id: null,
      self_stats: {},
    });
  });
});
