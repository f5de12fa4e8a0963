import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime.js";
import { TODOS_ENTRY_TYPE, todosOnPath } from "../../src/todos/todo-record.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { collect, harness } from "./harness.js";

const first = [{ content: "Write the parser", status: "in_progress" as const }];
const second = [
  { content: "Write the parser", status: "completed" as const },
  { content: "Test the parser", status: "pending" as const },
];

function toolOutputs(events: Awaited<ReturnType<typeof collect>>["events"]): string[] {
  return events.flatMap((e) => (e.type === "tool_end" ? [e.output] : []));
}

describe("durable todos", () => {
  it("records todowrite on the path, reads it back in a later run, and keeps each branch's own list", async () => {
    const model = scriptedModel([
      [toolCall("todowrite", { todos: first }, { id: "w1" })],
      [text("Planned.")],
      // A later run of the same session, by another runtime: the list comes from the session.
      [toolCall("todoread", {}, { id: "r1" })],
      [toolCall("todowrite", { todos: second }, { id: "w2" })],
      [text("Parser written.")],
      // A branch from the end of the first run: it sees the first run's list, not the second's.
      [toolCall("todoread", {}, { id: "r2" })],
      [text("Back on the first branch.")],
    ]);
    const { runtime, store, cwd, home } = await harness({ model });
    const one = runtime.runs.run({ prompt: "Plan the parser" });
    await collect(one);
    const sessionId = one.sessionId;
    const afterFirst = (await store.getSession(sessionId))?.leafEntryId;
    expect(afterFirst).toBeTruthy();
    const firstPath = await store.getActivePath(sessionId);
    expect(firstPath.filter((e) => e.type === "custom" && e.customType === TODOS_ENTRY_TYPE)).toHaveLength(1);
    expect(todosOnPath(firstPath)).toEqual(first);

    const again = createRuntime({ store, cwd, arborHome: home, env: {}, model, blobs: new MemoryBlobStore() });
    try {
      const two = await collect(again.runs.run({ prompt: "Write it", sessionId }));
      expect(toolOutputs(two.events)[0]).toContain("[→] Write the parser");
      expect(todosOnPath(await store.getActivePath(sessionId))).toEqual(second);

      await store.switchLeaf(sessionId, afterFirst as string);
      const three = await collect(again.runs.run({ prompt: "What was left?", sessionId }));
      const read = toolOutputs(three.events)[0] ?? "";
      expect(read).toContain("[→] Write the parser");
      expect(read).not.toContain("Test the parser");
      expect(todosOnPath(await store.getActivePath(sessionId))).toEqual(first);
    } finally {
      await again.close();
    }
  });

  it("writes no record for a step that did not change the list", async () => {
    const model = scriptedModel([[toolCall("todoread", {}, { id: "r1" })], [text("Nothing to do.")]]);
    const { runtime, store } = await harness({ model });
    const run = runtime.runs.run({ prompt: "Anything?" });
    const { events } = await collect(run);
    expect(toolOutputs(events)[0]).toContain("(no todos)");
    const path = await store.getActivePath(run.sessionId);
    expect(path.some((e) => e.type === "custom" && e.customType === TODOS_ENTRY_TYPE)).toBe(false);
  });
});

describe("llm_start's leaf_id", () => {
  it("names the entry each step's call continues from, so a late reader sees the session as it stood then", async () => {
    const model = scriptedModel([[toolCall("todowrite", { todos: first }, { id: "w1" })], [text("Planned.")]]);
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "Plan the parser" });
    const { events } = await collect(handle);
    const path = await store.getActivePath(handle.sessionId);
    const starts = events.flatMap((e) => (e.type === "llm_start" && e.node !== "title" ? [e.leaf_id] : []));
    const user = path.findIndex((e) => e.type === "message" && e.message.role === "user");
    const record = path.findIndex((e) => e.type === "custom" && e.customType === TODOS_ENTRY_TYPE);
    // The first call answers the prompt; the second comes after the first step's tool result and its todo record.
    expect(starts).toEqual([path[user]?.id, path[record]?.id]);
    expect(todosOnPath(path.slice(0, user + 1))).toEqual([]);
    expect(todosOnPath(path.slice(0, record + 1))).toEqual(first);
  });
});
