import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import { type AgentCapabilities, type BaseEvent, EventType } from "@ag-ui/core";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, startServer, type TestServer } from "./helpers/server.js";

/** Runs `agent` once, collecting every event its subscriber sees. */
async function runCollecting(agent: HttpAgent, params?: Parameters<HttpAgent["runAgent"]>[0]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

/** An HttpAgent on a thread of the server's /api/ag-ui whose first message, from the user, is `prompt`. */
function agentAsking(server: Pick<TestServer, "url">, threadId: string, prompt: string): HttpAgent {
  const agent = new HttpAgent({ url: `${server.url}/api/ag-ui`, threadId });
  agent.addMessage({ id: "u1", role: "user", content: prompt });
  return agent;
}

describe("AG-UI endpoint", () => {
  it("streams a run with a tool call to an HttpAgent: RUN_STARTED, the call and its result, the answer, RUN_FINISHED", async () => {
    const server = await startServer({
      script: [[toolCall("read", { path: "notes.txt" }, { id: "c1" })], [text("The notes say hello.")]],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "hello\n");
    const agent = agentAsking(server, "agui-thread-1", "What do the notes say?");
    const events = await runCollecting(agent);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    expect(types).toEqual(
      expect.arrayContaining([
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
        EventType.TEXT_MESSAGE_CONTENT,
      ]),
    );
    // The client's own message list holds the call with its arguments, its result, and the answer.
    const assistant = agent.messages.filter((m) => m.role === "assistant");
    const call = assistant.flatMap((m) => ("toolCalls" in m ? (m.toolCalls ?? []) : [])).find((c) => c.id === "c1");
    expect(call?.function.name).toBe("read");
    expect(JSON.parse(call?.function.arguments ?? "{}")).toEqual({ path: "notes.txt" });
    const result = agent.messages.find((m) => m.role === "tool");
    expect(result && "content" in result ? String(result.content) : "").toContain("hello");
    expect(assistant.map((m) => (typeof m.content === "string" ? m.content : "")).join("")).toContain("The notes say hello.");
    // The thread is the Arbor session.
    expect((await server.store.getSession("agui-thread-1"))?.id).toBe("agui-thread-1");
  });

  it("refuses input that is not a RunAgentInput with a clear 400, writing nothing", async () => {
    const server = await startServer({ script: [[text("never")]] });
    const bad = await server.api("/api/ag-ui", { json: { threadId: "t-bad", runId: "r1", messages: "hello" } });
    const err = await errorOf(bad);
    expect(err.status).toBe(400);
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(/RunAgentInput: messages/);
    // Through the client: a run without a user message.
    const agent = new HttpAgent({ url: `${server.url}/api/ag-ui`, threadId: "t-empty" });
    await expect(agent.runAgent()).rejects.toThrow(/400|no text/);
    expect((await server.store.listSessions({})).sessions.length).toBe(0);
  });
  it("ends a run that asks permission with an interrupt, and the next run's resume answers it", async () => {
    const server = await startServer({
      script: [[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]],
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const agent = agentAsking(server, "agui-ask", "Is the key set?");
    const first = await runCollecting(agent);
    const finished = first.at(-1) as BaseEvent & { outcome?: { type: string } };
    expect(finished.outcome?.type).toBe("interrupt");
    const interrupt = agent.pendingInterrupts[0];
    expect(interrupt).toMatchObject({ reason: "tool_permission", toolCallId: "r1" });
    // A resume naming no interrupt of this server is refused, and the run still waits.
    const bogus = await server.api("/api/ag-ui", {
      json: {
        threadId: "agui-ask",
        runId: "x",
        messages: [],
        tools: [],
        context: [],
        resume: [{ interruptId: "nope", status: "resolved" }],
      },
    });
    expect((await errorOf(bogus)).code).toBe("invalid_input");
    const second = await runCollecting(agent, {
      resume: [{ interruptId: interrupt?.id ?? "", status: "resolved", payload: { reply: "once" } }],
    });
    expect(second.map((e) => e.type)).toContain(EventType.TOOL_CALL_RESULT);
    expect(second.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    expect(agent.pendingInterrupts).toEqual([]);
  });
  it("continues from the entry parentRunId names, as a new branch of the thread", async () => {
    const server = await startServer({ script: [[text("first")], [text("second")]] });
    const agent = agentAsking(server, "agui-branch", "one");
    await agent.runAgent();
    const path = await server.store.getActivePath("agui-branch");
    // The user message entry: the new message is sent again from its parent, as its sibling.
    const root = path.find((e) => e.type === "message" && e.message.role === "user");
    expect(root).toBeDefined();
    const res = await server.api("/api/ag-ui", {
      json: {
        threadId: "agui-branch",
        runId: "r2",
        parentRunId: root?.id,
        messages: [{ id: "u2", role: "user", content: "two" }],
        tools: [],
        context: [],
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("RUN_FINISHED");
    const after = await server.store.getActivePath("agui-branch");
    // The new turn is a branch: the first question and answer are no longer on the active path.
    expect(after.map((e) => e.id)).not.toContain(root?.id);
    expect(after.map((e) => e.id)).not.toContain(path.at(-1)?.id);
    expect(after.length).toBe(path.length);
    // An entry the thread does not hold is refused before anything is written.
    const bad = await server.api("/api/ag-ui", {
      json: {
        threadId: "agui-branch",
        runId: "r3",
        parentRunId: "no-such-entry",
        messages: [{ id: "u3", role: "user", content: "x" }],
        tools: [],
        context: [],
      },
    });
    expect(bad.status).toBe(404);
    expect((await server.store.getActivePath("agui-branch")).length).toBe(after.length);
  });

  it("shares the goal tree and todos as state (a snapshot, then JSON Patch deltas) and ends with the conversation by entry id", async () => {
    const server = await startServer({
      script: [
        [toolCall("goal", { add: "Survey, Decide" }, { id: "g1" })],
        [
          toolCall(
            "todowrite",
            { todos: [{ content: "Read the notes", status: "in_progress", priority: "high" }] },
            { id: "t1" },
          ),
        ],
        [text("Planned.")],
        [text("title")],
      ],
    });
    const agent = agentAsking(server, "agui-state", "Plan the work.");
    const events = await runCollecting(agent);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual([EventType.RUN_STARTED, EventType.STATE_SNAPSHOT]);
    expect(types.filter((t) => t === EventType.STATE_DELTA).length).toBeGreaterThanOrEqual(2);
    expect(types.at(-2)).toBe(EventType.MESSAGES_SNAPSHOT);
    // The client applied the snapshot and every delta: its state is the session's.
    const state = agent.state as { goals: { goals: { description: string }[] } | null; todos: { content: string }[] };
    expect(state.goals?.goals.map((g) => g.description)).toEqual(["Survey", "Decide"]);
    expect(state.todos.map((t) => t.content)).toEqual(["Read the notes"]);
    // The messages are the session's, named by entry id: any can be a later run's parentRunId.
    const path = await server.store.getActivePath("agui-state");
    const entryIds = new Set(path.map((e) => e.id));
    const userAndAssistant = agent.messages.filter((m) => m.role === "user" || m.role === "assistant");
    expect(userAndAssistant.length).toBe(4);
    expect(userAndAssistant.every((m) => entryIds.has(m.id))).toBe(true);
    expect(agent.messages.filter((m) => m.role === "tool").map((m) => ("toolCallId" in m ? m.toolCallId : ""))).toEqual([
      "g1",
      "t1",
    ]);
  });

  it("describes itself for capability discovery, and runs the agent forwardedProps names", async () => {
    const model = scriptedModel([[text("Planned.")], [text("Built.")]]);
    const server = await startServer({ runtime: { model } });
    const caps = (await (await server.api("/api/ag-ui/capabilities")).json()) as AgentCapabilities;
    expect(caps.state).toMatchObject({ snapshots: true, deltas: true });
    expect(caps.humanInTheLoop?.approvals).toBe(true);
    expect(caps.multiAgent?.subagents?.map((a) => a.name)).toEqual(expect.arrayContaining(["build", "plan"]));
    const toolsOf = (call: number) => (model.calls[call]?.options.tools ?? []).map((t) => t.name);
    const planning = agentAsking(server, "agui-plan", "Think first.");
    await planning.runAgent({ forwardedProps: { agent: "plan" } });
    // The plan agent reads; it has no tool that writes files.
    expect(toolsOf(0)).toContain("read");
    expect(toolsOf(0)).not.toContain("write");
    const building = agentAsking(server, "agui-build", "Build it.");
    await building.runAgent();
    expect(toolsOf(model.calls.length - 1)).toContain("write");
  });
});
