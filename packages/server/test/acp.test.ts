import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { ConfigSchema, createRuntime, resolveConfig } from "@arbor/core";
import { hang, reasoning, routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { type ConfigLike, connect, connectedSession, kinds, refusal, textOf } from "./helpers/acp-client.js";
import { onCleanup, startServer, tempDir } from "./helpers/server.js";

describe("ACP agent (in process, the SDK's client)", () => {
  it("initializes, opens a session, and streams a prompt's text, thoughts and tool calls", async () => {
    const server = await startServer({
      script: [
        [reasoning("Look at the notes."), text("Reading."), toolCall("read", { path: "notes.txt" }, { id: "r1" })],
        [text("The notes say 42.")],
      ],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "42\n");
    const client = connect(server);
    const init = await client.init();
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {}, resume: {} } });
    const session = await client.newSession();
    expect(session.modes?.currentModeId).toBe("build");
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(expect.arrayContaining(["build", "plan"]));
    // Opening a session writes nothing: its first prompt creates it.
    expect((await server.store.listSessions()).sessions).toEqual([]);

    const response = await client.prompt(session.sessionId, "What do the notes say?");
    expect(response.stopReason).toBe("end_turn");
    expect(textOf(client.updates, "agent_message_chunk")).toBe("Reading.The notes say 42.");
    expect(textOf(client.updates, "agent_thought_chunk")).toBe("Look at the notes.");
    const calls = client.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "tool_call");
    expect(calls).toEqual([
      expect.objectContaining({
        toolCallId: "r1",
        kind: "read",
        status: "in_progress",
        title: "read notes.txt",
        locations: [{ path: join(server.cwd, "notes.txt") }],
      }),
    ]);
    const ends = client.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "tool_call_update");
    expect(ends).toEqual([expect.objectContaining({ toolCallId: "r1", status: "completed" })]);
    expect(JSON.stringify(ends[0])).toContain("42");
    expect(client.updates.every((n) => n.sessionId === session.sessionId)).toBe(true);
    expect(await server.store.getSession(session.sessionId)).toMatchObject({ id: session.sessionId });
  });

  it("an edit's tool call carries its diff; a permission ask is a session/request_permission round trip", async () => {
    const server = await startServer({
      script: [
        [toolCall("read", { path: ".env" }, { id: "p1" })],
        [toolCall("write", { path: "out.txt", content: "hello\n" }, { id: "w1" })],
        [text("Done.")],
      ],
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const { client, sessionId } = await connectedSession(server, () => "once");
    expect((await client.prompt(sessionId, "check .env and write out.txt")).stopReason).toBe("end_turn");

    expect(client.asked).toHaveLength(1);
    const ask = client.asked[0] as acp.RequestPermissionRequest;
    expect(ask.sessionId).toBe(sessionId);
    expect(ask.toolCall).toMatchObject({ toolCallId: "p1", kind: "read" });
    expect(ask.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["once", "allow_once"],
      ["always", "allow_always"],
      ["reject", "reject_once"],
    ]);
    const read = client.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "p1");
    expect(read).toMatchObject({ status: "completed" });
    const write = client.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "w1");
    expect(write).toMatchObject({
      kind: "edit",
      content: [{ type: "diff", path: join(server.cwd, "out.txt"), newText: "hello\n" }],
    });
    expect(readFileSync(join(server.cwd, "out.txt"), "utf8")).toBe("hello\n");
  });

  it("a rejected permission fails the tool call and the run goes on to its end", async () => {
    const server = await startServer({
      script: [[toolCall("read", { path: ".env" }, { id: "p1" })], [text("Could not read it.")]],
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const { client, sessionId } = await connectedSession(server, () => "reject");
    const response = await client.prompt(sessionId, "check .env");
    expect(client.asked).toHaveLength(1);
    const end = client.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update");
    expect(end).toMatchObject({ toolCallId: "p1", status: "failed" });
    expect(JSON.stringify(end)).not.toContain("KEY=1");
    expect(["end_turn"]).toContain(response.stopReason);
  });

  it("session/cancel aborts the running prompt, which answers cancelled and keeps what was said", async () => {
    const server = await startServer({ script: [[text("Working on it"), hang()]] });
    const { client, sessionId } = await connectedSession(server);
    const prompt = client.prompt(sessionId, "do something long");
    await client.seen((n) => n.update.sessionUpdate === "agent_message_chunk");
    await client.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(await server.runtime.runs.busy(sessionId)).toBeUndefined();
    const path = await server.store.getActivePath(sessionId);
    expect(JSON.stringify(path)).toContain("do something long");
  });

  it("session/load replays a session's history to another client; session/list lists it", async () => {
    const server = await startServer({
      script: [[text("Reading."), toolCall("read", { path: "notes.txt" }, { id: "r1" })], [text("It says 42.")]],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "42\n");
    const first = connect(server);
    await first.init();
    const { sessionId } = await first.newSession();
    await first.prompt(sessionId, "read the notes");

    const second = connect(server);
    await second.init();
    const listed = await second.agent.request("session/list", {});
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    const loaded = await second.agent.request("session/load", { sessionId, cwd: server.cwd, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("build");
    expect(kinds(second.updates)).toEqual([
      "user_message_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    expect(textOf(second.updates, "user_message_chunk")).toBe("read the notes");
    expect(textOf(second.updates, "agent_message_chunk")).toBe("Reading.It says 42.");
    expect(second.updates[2]?.update).toMatchObject({ toolCallId: "r1", kind: "read" });
    expect(second.updates[3]?.update).toMatchObject({ toolCallId: "r1", status: "completed" });
  });

  it("_arbor/fork copies a session to a new one the client prompts on; the original is unchanged", async () => {
    const server = await startServer({ script: [[text("First answer.")], [text("Forked answer.")]] });
    const { client, sessionId } = await connectedSession(server);
    await client.prompt(sessionId, "one");
    const before = await server.store.getActivePath(sessionId);
    const entries = await client.agent.request<{ entries: { entryId: string; kind: string }[] }>("_arbor/entries", {
      sessionId,
    });
    expect(entries.entries.map((e) => e.kind)).toEqual(["user", "assistant"]);

    const forked = await client.agent.request<{ sessionId: string }>("_arbor/fork", { sessionId });
    expect(forked.sessionId).not.toBe(sessionId);
    expect((await client.prompt(forked.sessionId, "two")).stopReason).toBe("end_turn");
    expect(
      textOf(
        client.updates.filter((n) => n.sessionId === forked.sessionId),
        "agent_message_chunk",
      ),
    ).toBe("Forked answer.");
    expect(await server.store.getActivePath(sessionId)).toEqual(before);
    expect((await server.store.getActivePath(forked.sessionId)).filter((e) => e.type === "message")).toHaveLength(4);
  });

  it("_arbor/continue_from_entry makes the next prompt a new branch from that entry", async () => {
    const server = await startServer({ script: [[text("First answer.")], [text("Second answer.")]] });
    const { client, sessionId } = await connectedSession(server);
    await client.prompt(sessionId, "one");
    const { entries } = await client.agent.request<{ entries: { entryId: string; kind: string }[] }>("_arbor/entries", {
      sessionId,
    });
    const user = entries.find((e) => e.kind === "user")?.entryId;
    await client.agent.request("_arbor/continue_from_entry", { sessionId, entryId: user });
    expect((await client.prompt(sessionId, "one, again")).stopReason).toBe("end_turn");
    const path = (await server.store.getActivePath(sessionId)).filter((e) => e.type === "message");
    expect(JSON.stringify(path)).toContain("one, again");
    expect(JSON.stringify(path)).not.toContain("First answer.");
    expect((await server.store.listEntries(sessionId)).filter((e) => e.type === "message")).toHaveLength(4);
  });

  it("plan mode: the plan streams as plan updates and its approval is a session/request_permission", async () => {
    const STEP = /Now carry out step \d+: (.*)$/;
    const model = routedModel({
      route: (prompt) => STEP.exec(taskOf(prompt))?.[1] ?? "main",
      models: {
        main: scriptedModel([[toolCall("plan_create", { title: "Check the repo", steps: ["Read the code", "Run the tests"] })]]),
        "Read the code": scriptedModel([[text("The code is fine.")]]),
        "Run the tests": scriptedModel([[text("All tests pass.")]]),
      },
    });
    const config = resolveConfig([{ source: "test", value: { plan: { requireApproval: true } } }]);
    const server = await startServer({ runtime: { model, config } });
    const { client, sessionId } = await connectedSession(server, () => "approve");
    expect((await client.prompt(sessionId, "check the repo")).stopReason).toBe("end_turn");
    expect(client.asked).toHaveLength(1);
    expect(client.asked[0]?.toolCall).toMatchObject({ title: "Approve plan: Check the repo", kind: "think" });
    expect(client.asked[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    const plans = client.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "plan");
    expect(plans[0]).toMatchObject({
      entries: [
        { content: "Read the code", status: "pending" },
        { content: "Run the tests", status: "pending" },
      ],
    });
    expect(plans.at(-1)).toMatchObject({
      entries: [
        { content: "Read the code", status: "completed" },
        { content: "Run the tests", status: "completed" },
      ],
    });
  });

  it("the goal tree is sent as a plan whenever the goal tool changes it", async () => {
    const server = await startServer({
      script: [[toolCall("goal", { add: "Survey, Decide" }, { id: "g1" })], [text("Planned.")]],
    });
    const { client, sessionId } = await connectedSession(server);
    await client.prompt(sessionId, "make a plan");
    const plans = client.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "plan");
    expect(plans.at(-1)).toMatchObject({
      entries: [
        { content: "Survey", status: expect.any(String) },
        { content: "Decide", status: "pending" },
      ],
    });
    const call = client.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ toolCallId: "g1", kind: "think" });
  });

  // Starts an MCP server process: seconds on a loaded machine.
  it("MCP servers the client passes join arbor.json's, in a runtime of their own", { timeout: 90_000 }, async () => {
    const server = await startServer({ script: [] });
    const made: ConfigLike[] = [];
    const everything = fileURLToPath(
      new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
    );
    const runtimeWith = (servers: ConfigLike) => {
      made.push(servers);
      const runtime = createRuntime({
        store: server.store,
        cwd: server.cwd,
        arborHome: tempDir(),
        env: {},
        config: ConfigSchema.parse({ mcp: { servers } }),
        model: scriptedModel([[toolCall("mcp__everything__echo", { message: "via acp" }, { id: "e1" })], [text("Echoed.")]]),
      });
      onCleanup(() => runtime.close());
      return runtime;
    };
    const client = connect(server, () => "once", runtimeWith);
    const init = await client.init();
    expect(init.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true });
    const { sessionId } = await client.agent.request("session/new", {
      cwd: server.cwd,
      mcpServers: [{ name: "everything", command: process.execPath, args: [everything, "stdio"], env: [] }],
    });
    expect((await client.prompt(sessionId, "echo it")).stopReason).toBe("end_turn");
    expect(made).toEqual([{ everything: expect.objectContaining({ command: process.execPath, args: [everything, "stdio"] }) }]);
    const end = client.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update");
    expect(end).toMatchObject({ toolCallId: "e1", status: "completed" });
    expect(JSON.stringify(end)).toContain("Echo: via acp");
    const sse = await refusal(
      client.agent.request("session/new", {
        cwd: server.cwd,
        mcpServers: [{ type: "sse", name: "old", url: "http://127.0.0.1:9/sse", headers: [] }],
      }),
    );
    expect(sse).toMatchObject({ code: -32602, message: expect.stringContaining("SSE") });
  });

  it("session modes are agents: set_mode plan runs the plan agent", async () => {
    const server = await startServer({ script: [[text("Planned.")]] });
    const { client, sessionId } = await connectedSession(server);
    await client.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await client.prompt(sessionId, "plan it");
    expect((await server.store.getSession(sessionId))?.agentId).toBe("plan");
  });

  it("bad input is a clear protocol error and writes nothing", async () => {
    const server = await startServer({ script: [[text("First.")]] });
    const client = connect(server);
    await client.init();
    const unknown = await refusal(client.prompt("not-a-session", "hi"));
    expect(unknown.code).toBe(-32002);
    const noCwd = await refusal(client.agent.request("session/new", { mcpServers: [] } as unknown as acp.NewSessionRequest));
    expect(noCwd.code).toBe(-32602);
    const missing = await refusal(
      client.agent.request("session/load", { sessionId: "missing", cwd: server.cwd, mcpServers: [] }),
    );
    expect(missing.code).toBe(-32002);
    const { sessionId } = await client.newSession();
    const badMode = await refusal(client.agent.request("session/set_mode", { sessionId, modeId: "nope" }));
    expect(badMode).toMatchObject({ code: -32602, message: expect.stringContaining("build") });
    const empty = await refusal(client.agent.request("session/prompt", { sessionId, prompt: [] }));
    expect(empty).toMatchObject({ code: -32602, message: expect.stringContaining("empty") });
    expect((await server.store.listSessions()).sessions).toEqual([]);

    await client.prompt(sessionId, "one");
    const before = await server.store.getActivePath(sessionId);
    const badEntry = await refusal(client.agent.request("_arbor/fork", { sessionId, entryId: "nope" }));
    expect(badEntry).toMatchObject({ code: -32002, data: { code: "entry_not_found" } });
    const badParams = await refusal(client.agent.request("_arbor/continue_from_entry", { sessionId }));
    expect(badParams.code).toBe(-32602);
    expect((await server.store.listSessions()).sessions.map((s) => s.id)).toEqual([sessionId]);
    expect(await server.store.getActivePath(sessionId)).toEqual(before);
  });
});
