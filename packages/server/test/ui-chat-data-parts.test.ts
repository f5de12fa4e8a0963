import { defineTool, type Entry, resolveConfig } from "@arbor/core";
import { scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { parseJsonEventStream, type UIMessage, uiMessageChunkSchema, validateUIMessages } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { arborDataPartSchemas } from "../src/index.js";
import { exploringModel } from "./helpers/models.js";
import { errorOf, startServer } from "./helpers/server.js";
import { readUi, user } from "./helpers/ui-stream.js";

const dataOf = (message: UIMessage, type: string) =>
  message.parts.filter((p) => p.type === `data-${type}`).map((p) => (p as { data: Record<string, unknown> }).data);

/** The message as a client holding the schemas checks it: every data part must match its schema. */
const checked = async (message: UIMessage) =>
  (await validateUIMessages({ messages: [message], dataSchemas: arborDataPartSchemas }))[0] as UIMessage;

describe("Arbor's own events as data parts of the UI message stream", () => {
  it("goals and two explore sub-agents arrive as typed goal and sub-agent parts", async () => {
    const server = await startServer({ runtime: { model: exploringModel() } });
    const { chunks, message } = await readUi(
      await server.api("/api/ui/chat", { json: { id: "chat-goals", messages: [user("pick one")] } }),
    );
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    const valid = await checked(message);

    const added = dataOf(valid, "goal-added");
    expect(added.map((d) => [d.trace_id, (d.goal as { id: string }).id])).toEqual([
      ["chat-goals", "1"],
      ["chat-goals", "2"],
    ]);
    const updated = dataOf(valid, "goal-updated");
    expect(updated).toContainEqual(expect.objectContaining({ trace_id: "chat-goals", goal_id: "1" }));

    const started = dataOf(valid, "sub-agent-started");
    expect(started.map((d) => d.task).sort()).toEqual(["branch one", "branch two"]);
    for (const sub of started) {
      expect(sub).toMatchObject({ parent_trace_id: "chat-goals", parent_goal_id: "1", agent_type: "explore" });
      expect(String(sub.trace_id)).toMatch(/^chat-goals@/);
    }
    const completed = dataOf(valid, "sub-agent-completed");
    expect(completed.map((d) => d.trace_id).sort()).toEqual(started.map((d) => d.trace_id).sort());
    expect(completed.every((d) => d.status === "completed")).toBe(true);
    // Each sub-agent starts after the explore call is shown and completes before its output.
    const index = (pred: (c: (typeof chunks)[number]) => boolean) => chunks.findIndex(pred);
    const exploreCall = index((c) => c.type === "tool-input-available" && c.toolName === "explore");
    const firstStart = index((c) => c.type === "data-sub-agent-started");
    expect(exploreCall).toBeGreaterThan(-1);
    expect(firstStart).toBeGreaterThan(exploreCall);
    expect(index((c) => c.type === "finish")).toBeGreaterThan(index((c) => c.type === "data-sub-agent-completed"));

    // Every data part has an id of its own, so a continued stream that reads an event again replaces its part.
    const ids = valid.parts.flatMap((p) => ("id" in p && p.type.startsWith("data-") ? [`${p.type}:${p.id}`] : []));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a sub-agent's start reaches the client while the run waits on it, before any later run event", async () => {
    // A gate that says when the sub-agent reached it, so the test releases it only then.
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let open!: (result: { output: string }) => void;
    const gate = defineTool({
      name: "gate",
      description: "Waits until the test opens it.",
      input: z.object({}),
      execute: () =>
        new Promise<{ output: string }>((resolve) => {
          open = resolve;
          reached();
        }),
    });
    // One scripted model: the delegated sub-agent plays the middle steps and waits at the gate.
    const server = await startServer({
      script: [
        [toolCall("delegate", { task: "Open the gate" }, { id: "d1" })],
        [toolCall("gate", {}, { id: "g1" })],
        [text("Gate opened.")],
        [text("The sub-agent is done.")],
      ],
      tools: [gate],
    });
    const res = await server.api("/api/ui/chat", { json: { id: "chat-live", messages: [user("delegate it")] } });
    const reader = parseJsonEventStream({
      stream: res.body as ReadableStream<Uint8Array>,
      schema: uiMessageChunkSchema,
    }).getReader();
    const seen: string[] = [];
    // The gate holds the sub-agent, so the parent's run sends nothing after the delegate call until it is released.
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${seen.join(", ")}`);
      if (!value.success) throw value.error;
      seen.push(value.value.type);
      if (value.value.type === "data-sub-agent-started") break;
    }
    expect(seen).toContain("tool-input-available");
    expect(seen).not.toContain("tool-output-available");
    await atGate;
    open({ output: "opened" });
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value.success) seen.push(value.value.type);
    }
    expect(seen.indexOf("data-sub-agent-completed")).toBeGreaterThan(seen.indexOf("data-sub-agent-started"));
    expect(seen.at(-1)).toBe("finish");
  });

  it("an automatic compaction is a data-compaction part, running and then done", async () => {
    const print = defineTool({
      name: "print",
      description: "Prints text.",
      input: z.object({ size: z.number() }),
      execute: async ({ size }) => ({ output: Array.from({ length: Math.ceil(size / 6) }, (_, i) => `w${i}`).join(" ") }),
    });
    const server = await startServer({
      tools: [print],
      runtime: {
        // Every step reports a prompt near the model's limit, so the next step compacts first.
        model: scriptedModel([
          [toolCall("print", { size: 24_000 }, { id: "c1" }), usage({ inputTokens: 9_500, outputTokens: 20 })],
          [text("## Goal\nPrint.\n## Next steps\nSay done."), usage({ inputTokens: 900, outputTokens: 40 })],
          [text("All printed."), usage({ inputTokens: 800, outputTokens: 5 })],
        ]),
        config: { ...resolveConfig([]), models: { "testkit/scripted": { limit: { context: 10_000, output: 1_000 } } } },
      },
    });
    const { chunks, message } = await readUi(
      await server.api("/api/ui/chat", { json: { id: "chat-compact", messages: [user("print")] } }),
    );
    const compaction = chunks.filter((c) => c.type === "data-compaction");
    expect(compaction.map((c) => (c as { data: { status: string } }).data.status)).toEqual(["running", "done"]);
    // One part in the message: the `done` chunk replaced the `running` one by its id.
    expect(dataOf(await checked(message), "compaction")).toEqual([
      expect.objectContaining({ status: "done", input_tokens: 900, output_tokens: 40 }),
    ]);
    const path = await server.store.getActivePath("chat-compact");
    expect(path.some((e) => e.type === "compaction")).toBe(true);
    expect(message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual(["All printed."]);
  });

  it("regenerate-message answers the last user message again on a new branch, told by a data-branch part", async () => {
    const server = await startServer({ script: [[text("First answer.")], [text("Second answer.")]] });
    const first = await readUi(await server.api("/api/ui/chat", { json: { id: "chat-regen", messages: [user("hi")] } }));
    const before = await server.store.getSession("chat-regen");
    const again = await readUi(
      await server.api("/api/ui/chat", {
        json: { id: "chat-regen", messages: [user("hi")], trigger: "regenerate-message", messageId: first.message.id },
      }),
    );
    const path = await server.store.getActivePath("chat-regen");
    const users = path.filter((e): e is Extract<Entry, { type: "message" }> => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(1);
    const [branch] = dataOf(await checked(again.message), "branch");
    const session = await server.api("/api/sessions/chat-regen");
    const entries = ((await session.json()) as { entries: Entry[] }).entries;
    const oldUser = entries.find((e) => e.type === "message" && e.message.role === "user" && e.id !== users[0]?.id);
    expect(branch).toEqual({ reason: "regenerate", from_entry_id: oldUser?.id, previous_leaf_entry_id: before?.leafEntryId });
    // The new question is the old one's sibling; the old answer stays on its own branch.
    expect(users[0]?.parentId).toBe(oldUser?.parentId);
    expect(again.message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "Second answer.",
    ]);
    expect(entries.filter((e) => e.type === "message" && e.message.role === "assistant")).toHaveLength(2);
  });

  it("regenerate-message for a session that does not exist is a 404 and creates nothing", async () => {
    const server = await startServer({ script: [[text("never")]] });
    const res = await server.api("/api/ui/chat", {
      json: { id: "chat-none", messages: [user("hi")], trigger: "regenerate-message" },
    });
    expect(await errorOf(res)).toMatchObject({ status: 404, code: "session_not_found" });
    expect(await server.store.getSession("chat-none")).toBeUndefined();
  });
});
