import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { resolveConfig } from "@arbor/core";
import { reasoning, routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { parseJsonEventStream, type UIMessage, uiMessageChunkSchema } from "ai";
import { describe, expect, it } from "vitest";
import { errorOf, gateTool, startServer } from "./helpers/server.js";
import { approveAll, readUi, user } from "./helpers/ui-stream.js";

describe("POST /api/ui/chat (AI SDK UI message stream)", () => {
  it("streams reasoning, a tool call and text as UI parts, in a session named by the chat id", async () => {
    const server = await startServer({
      script: [
        [reasoning("Let me look."), toolCall("read", { path: "notes.txt" }, { id: "c1" })],
        [text(["All ", "done."])],
        [text("Again.")],
      ],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "hello\n");
    const res = await server.api("/api/ui/chat", {
      json: { id: "chat-one", messages: [user("list files")], trigger: "submit-message" },
    });
    const { chunks, message } = await readUi(res);
    expect(chunks[0]).toMatchObject({ type: "start", messageMetadata: { sessionId: "chat-one" } });
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    const kinds = message.parts.map((p) => p.type).filter((t) => t !== "step-start" && !t.startsWith("data-"));
    expect(kinds).toEqual(["reasoning", "dynamic-tool", "text"]);
    expect(message.parts.find((p) => p.type === "reasoning")).toMatchObject({ text: "Let me look.", state: "done" });
    expect(message.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({
      toolName: "read",
      toolCallId: "c1",
      state: "output-available",
      input: { path: "notes.txt" },
    });
    expect(message.parts.find((p) => p.type === "text")).toMatchObject({ text: "All done.", state: "done" });
    expect(message.parts.some((p) => p.type === "data-model-call")).toBe(true);
    const session = await server.store.getSession("chat-one");
    expect(session?.totalMessages).toBeGreaterThanOrEqual(4);
    // The same chat id continues the same session.
    const again = await server.api("/api/ui/chat", {
      json: { id: "chat-one", messages: [user("list files"), user("and again")] },
    });
    expect(again.status).toBe(200);
    await readUi(again);
  });

  it("a permission ask is a tool-approval-request; a reload resumes it and the client's approval continues the run", async () => {
    const server = await startServer({
      script: [[text("Checking."), toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]],
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const first = await readUi(await server.api("/api/ui/chat", { json: { id: "chat-ask", messages: [user("check .env")] } }));
    expect(first.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
    const ask = first.chunks.find((c) => c.type === "tool-approval-request");
    expect(ask).toMatchObject({ toolCallId: "r1" });
    expect(first.message.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({ state: "approval-requested" });
    expect(server.runtime.asks.pendingPermissions("chat-ask")).toHaveLength(1);

    // Another request (a reloaded page) resumes the run in progress from its first event, up to the waiting ask.
    const resumed = await readUi(await server.api("/api/ui/chat/chat-ask/stream"));
    expect(resumed.message.parts.find((p) => p.type === "text")).toMatchObject({ text: "Checking." });
    expect(resumed.message.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({
      toolCallId: "r1",
      state: "approval-requested",
    });

    // The client answers as useChat's addToolApprovalResponse does and sends the messages again.
    const answer = (): UIMessage => approveAll(resumed.message);
    const res = await server.api("/api/ui/chat", { json: { id: "chat-ask", messages: [user("check .env"), answer()] } });
    const done = await readUi(res, answer());
    expect(done.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    const tool = done.message.parts.find((p) => p.type === "dynamic-tool");
    expect(tool).toMatchObject({ state: "output-available" });
    expect(String((tool as { output: unknown }).output)).toContain("KEY=1");
    expect(done.message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "Checking.",
      "The key is set.",
    ]);
    // Answered twice: a clear error.
    expect(
      await errorOf(await server.api("/api/ui/chat", { json: { id: "chat-ask", messages: [user("x"), answer()] } })),
    ).toMatchObject({
      status: 404,
      code: "permission_not_found",
    });
    // No run in progress: nothing to resume.
    expect((await server.api("/api/ui/chat/chat-ask/stream")).status).toBe(204);
  });

  it("bad input gets a clear 400 and writes nothing", async () => {
    const server = await startServer({ script: [[text("never")]] });
    const bad = [
      { id: "../etc", messages: [user("hi")] },
      { id: "chat-bad", messages: [] },
      { id: "chat-bad", messages: [{ id: "u", role: "user", parts: [{ type: "file", url: "x", mediaType: "image/png" }] }] },
      { id: "chat-bad", messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "hi" }] }] },
      { messages: [user("hi")] },
    ];
    for (const json of bad) {
      const err = await errorOf(await server.api("/api/ui/chat", { json }));
      expect(err.status, JSON.stringify(json)).toBe(400);
      expect(err.message.length).toBeGreaterThan(20);
    }
    expect(await server.store.getSession("chat-bad")).toBeUndefined();
    // useChat resumes a new chat before its first message: a chat id no session has yet has nothing to resume.
    expect((await server.api("/api/ui/chat/nosuch/stream")).status).toBe(204);
    expect(await server.store.getSession("nosuch")).toBeUndefined();
    expect(await errorOf(await server.api("/api/ui/chat/..%2Fetc/stream"))).toMatchObject({ status: 400 });
  });
});

describe("GET /api/ui/chat/:id/stream from the event log", () => {
  it("another server over the same store resumes a run in progress from its first event and follows it to the end", async () => {
    const gate = gateTool();
    const a = await startServer({
      script: [[text("Working."), toolCall("gate", {}, { id: "g1" })], [text("Finished.")]],
      tools: [gate.tool],
    });
    // The page reads until the run waits at the gate, then goes away (a reload).
    const res = await a.api("/api/ui/chat", { json: { id: "chat-far", messages: [user("go")] } });
    const reader = parseJsonEventStream({
      stream: res.body as ReadableStream<Uint8Array>,
      schema: uiMessageChunkSchema,
    }).getReader();
    for (;;) {
      const { value } = await reader.read();
      if (value?.success && value.value.type === "tool-input-available") break;
    }
    await reader.cancel();

    const b = await startServer({ store: () => join(dirname(a.cwd), "store") });
    // B answers while the run still waits at the gate; it is released only then.
    const resumed = await b.api("/api/ui/chat/chat-far/stream");
    gate.release("opened");
    const { message, chunks } = await readUi(resumed);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "Working.",
      "Finished.",
    ]);
    expect(message.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({ toolCallId: "g1", output: "opened" });
    // The run ended: nothing to resume, on either server.
    expect((await b.api("/api/ui/chat/chat-far/stream")).status).toBe(204);
    expect((await a.api("/api/ui/chat/chat-far/stream")).status).toBe(204);
  });
});

describe("plan approval over the UI stream", () => {
  it("a plan waiting for approval is a tool-approval-request; the client's approval runs the plan in the same message", async () => {
    const STEP = /Now carry out step \d+: (.*)$/;
    const model = routedModel({
      route: (prompt) => STEP.exec(taskOf(prompt))?.[1] ?? "main",
      models: {
        main: scriptedModel([[toolCall("plan_create", { title: "Check", steps: ["Read the code"] })]]),
        "Read the code": scriptedModel([[text("The code is fine.")]]),
      },
    });
    const config = resolveConfig([{ source: "test", value: { plan: { requireApproval: true } } }]);
    const server = await startServer({ runtime: { model, config } });
    const first = await readUi(await server.api("/api/ui/chat", { json: { id: "chat-plan", messages: [user("check")] } }));
    expect(first.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
    const call = first.message.parts.find((p) => p.type === "dynamic-tool" && p.toolName === "plan_approval");
    expect(call).toMatchObject({ state: "approval-requested", input: { title: "Check" } });
    expect(first.message.parts.some((p) => p.type === "data-plan-created")).toBe(true);

    const answered = approveAll(first.message);
    const res = await server.api("/api/ui/chat", { json: { id: "chat-plan", messages: [user("check"), answered] } });
    const done = await readUi(res, structuredClone(answered));
    expect(done.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(done.message.parts.find((p) => p.type === "dynamic-tool" && p.toolName === "plan_approval")).toMatchObject({
      state: "output-available",
      output: "approved",
    });
    const updates = done.message.parts.filter((p) => p.type === "data-plan-updated").map((p) => (p as { data: unknown }).data);
    expect(updates).toContainEqual(expect.objectContaining({ step_id: 1, status: "completed" }));
    expect(server.runtime.asks.pendingPlanApprovals("chat-plan")).toEqual([]);
  });
});
