import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hang, text, toolCall } from "@arbor/testkit";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectMcp, textOfResult } from "./helpers/mcp-client.js";
import { startServer, type TestServer } from "./helpers/server.js";

const TOKEN = "mcp-test-token";

const connect = (server: TestServer, token: string | null = TOKEN) => connectMcp(server, token);

describe("/mcp: Arbor served over MCP Streamable HTTP", () => {
  it("an MCP client runs an agent end to end: tools called, progress streamed, the run finished and readable", async () => {
    const server = await startServer({
      script: [[text("Reading."), toolCall("read", { path: "notes.txt" }, { id: "r1" })], [text("The notes say 42.")]],
      server: { token: TOKEN },
    });
    writeFileSync(join(server.cwd, "notes.txt"), "42\n");
    const client = await connect(server);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "answer_permission",
      "answer_plan",
      "answer_question",
      "continue_from_entry",
      "fork_session",
      "list_pending",
      "list_sessions",
      "read_session",
      "read_trace",
      "run_prompt",
      "start_run",
    ]);
    const progress: string[] = [];
    const result = (await client.callTool({ name: "run_prompt", arguments: { prompt: "What do the notes say?" } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ""),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOfResult(result)).toBe("The notes say 42.");
    expect(result.structuredContent).toMatchObject({ status: "done", steps: 2 });
    expect(progress).toEqual(expect.arrayContaining(["tool read started", "tool read done"]));
    const sessionId = (result.structuredContent as { session_id: string }).session_id;

    const read = (await client.callTool({ name: "read_session", arguments: { session_id: sessionId } })) as CallToolResult;
    const entries = (read.structuredContent as { entries: { type: string }[] }).entries;
    expect(entries.filter((e) => e.type === "message")).toHaveLength(4);
    const listed = (await client.callTool({ name: "list_sessions", arguments: {} })) as CallToolResult;
    expect((listed.structuredContent as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual([sessionId]);
    const trace = (await client.callTool({ name: "read_trace", arguments: { trace_id: sessionId } })) as CallToolResult;
    expect(trace.isError).toBeFalsy();
  });

  it("a permission ask waits for answer_permission, listed by list_pending", async () => {
    const server = await startServer({
      script: [[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]],
      server: { token: TOKEN },
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const client = await connect(server);
    // The run says it waits (a progress report naming the ask) before the client answers.
    let asked: (message: string) => void = () => {};
    const waiting = new Promise<string>((resolve) => {
      asked = resolve;
    });
    const run = client.callTool({ name: "run_prompt", arguments: { prompt: "check .env" } }, undefined, {
      onprogress: (p) => {
        if (p.message?.includes("answer_permission")) asked(p.message);
      },
    });
    expect(await waiting).toMatch(/waiting for permission read \(.*\.env\): answer_permission id=/);
    const listed = (await client.callTool({ name: "list_pending", arguments: {} })) as CallToolResult;
    const pending = (
      listed.structuredContent as { permissions: { id: string; request: { permission: string } }[] }
    ).permissions.map((p) => ({ id: p.id, permission: p.request.permission }));
    expect(pending).toEqual([{ id: expect.any(String), permission: "read" }]);
    const answered = (await client.callTool({
      name: "answer_permission",
      arguments: { id: pending[0]?.id, reply: "always", scope: "project" },
    })) as CallToolResult;
    expect(answered.isError).toBeFalsy();
    const result = (await run) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: "done", text: "The key is set." });
    // "Always" in the project scope is in the workspace's approvals, for the exact file asked about.
    expect(await server.runtime.asks.listAllApprovals()).toEqual([
      expect.objectContaining({ scope: "project", permission: "read", pattern: ".env" }),
    ]);
  });

  it("forks a session and continues one from an entry", async () => {
    const server = await startServer({
      script: [[text("First answer.")], [text("Second answer.")]],
      server: { token: TOKEN },
    });
    const client = await connect(server);
    const first = (await client.callTool({ name: "run_prompt", arguments: { prompt: "one" } })) as CallToolResult;
    const sessionId = (first.structuredContent as { session_id: string }).session_id;
    const path = await server.store.getActivePath(sessionId);
    const user = path.find((e) => e.type === "message" && e.message.role === "user");
    const answer = path.at(-1);
    const fork = (await client.callTool({
      name: "fork_session",
      arguments: { session_id: sessionId, entry_id: user?.id },
    })) as CallToolResult;
    expect(fork.isError).toBeFalsy();
    const forkId = (fork.structuredContent as { session: { id: string } }).session.id;
    expect(forkId).not.toBe(sessionId);
    expect(await server.store.getActivePath(forkId)).toHaveLength(1);

    const again = (await client.callTool({
      name: "continue_from_entry",
      arguments: { session_id: sessionId, entry_id: answer?.id, prompt: "two" },
    })) as CallToolResult;
    expect(again.structuredContent).toMatchObject({ session_id: sessionId, status: "done", text: "Second answer." });
    const texts = (await server.store.getActivePath(sessionId)).flatMap((e) =>
      e.type === "message" ? e.message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])) : [],
    );
    expect(texts).toEqual(["one", "First answer.", "two", "Second answer."]);
  });

  it("bad input to each tool is a clear MCP error and writes nothing", async () => {
    const server = await startServer({ server: { token: TOKEN } });
    const client = await connect(server);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["run_prompt", { prompt: "" }, /prompt/],
      ["run_prompt", { prompt: "hi", session_id: "not an id" }, /invalid_id/],
      ["run_prompt", { prompt: "hi", session_id: "01J0000000000000000000000A" }, /session_not_found|invalid_id/],
      ["continue_from_entry", { prompt: "hi", session_id: "nope", entry_id: "e" }, /session_not_found/],
      ["fork_session", { session_id: "nope" }, /entry_id/],
      ["list_sessions", { limit: 0 }, /limit/],
      ["read_session", { session_id: "nope" }, /session_not_found/],
      ["read_trace", { trace_id: "nope" }, /invalid|not_found/],
      ["answer_permission", { id: "p1", reply: "maybe" }, /reply/],
      ["answer_permission", { id: "p1", reply: "once" }, /No permission ask p1 is waiting/],
      ["answer_plan", { plan_id: "x", approved: "yes" }, /approved/],
      ["answer_plan", { plan_id: "x", approved: true }, /invalid_input|plan_not_found/],
      ["answer_question", { id: "question_x" }, /Give answers, or dismiss/],
      ["answer_question", { id: "question_x", answers: ["a"] }, /No question question_x is waiting/],
    ];
    for (const [name, args, pattern] of cases) {
      let message: string;
      try {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        message = textOfResult(result);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, `${name} ${JSON.stringify(args)}`).toMatch(pattern);
    }
    expect((await server.store.listSessions({})).sessions).toEqual([]);
  });

  it("cancelling the request aborts the run, keeping what it wrote", async () => {
    const server = await startServer({ script: [[text("Thinking…"), hang()]], server: { token: TOKEN } });
    const client = await connect(server);
    const controller = new AbortController();
    // Cancelled once the run reports that it called the model (which then never answers).
    const call = client.callTool({ name: "run_prompt", arguments: { prompt: "take your time" } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.message?.startsWith("model called")) controller.abort();
      },
    });
    await expect(call).rejects.toThrow();
    const [session] = (await server.store.listSessions({})).sessions;
    // The run ends as aborted once the server sees the cancellation.
    for (;;) {
      const meta = await server.store.getSession(session?.id as string);
      if (meta?.status !== "running") {
        expect(meta?.status).toBe("aborted");
        break;
      }
      await new Promise((r) => setImmediate(r));
    }
  });

  it("needs the API's token", async () => {
    const server = await startServer({ server: { token: TOKEN } });
    await expect(connect(server, null)).rejects.toThrow(/401|Unauthorized|Bearer/i);
    await expect(connect(server, "wrong")).rejects.toThrow(/401|Unauthorized|Bearer/i);
  });
});

describe("/mcp sessions are bounded", () => {
  it("a session idle past its limit is ended (404, initialize again); one with a call streaming is not", async () => {
    let clock = 0;
    const server = await startServer({
      script: [[hang()]],
      server: { token: TOKEN, mcpSessions: { idleMs: 60_000, now: () => clock } },
    });
    const idle = await connect(server);
    const busy = await connect(server);
    await idle.listTools();
    // A run that hangs keeps its call's response streaming past the idle limit.
    const call = busy.callTool({ name: "run_prompt", arguments: { prompt: "wait" } }).catch((err: unknown) => err);
    await expect.poll(async () => (await busy.callTool({ name: "list_pending", arguments: {} })).isError).toBeFalsy();
    clock += 60_000;
    await expect(idle.listTools()).rejects.toThrow(/not known here.*idle past its limit/);
    expect((await busy.callTool({ name: "list_sessions", arguments: {} })).isError).toBeFalsy();
    await busy.close();
    await call;
    const fresh = await connect(server);
    expect((await fresh.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("past the cap a new session ends the longest idle one; with every session busy it is refused with 503", async () => {
    let clock = 0;
    const server = await startServer({
      script: [[hang()], [hang()]],
      server: { token: TOKEN, mcpSessions: { max: 2, now: () => clock } },
    });
    const first = await connect(server);
    clock += 1;
    const second = await connect(server);
    clock += 1;
    await second.listTools();
    const third = await connect(server);
    await expect(first.listTools()).rejects.toThrow(/not known here/);
    expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    expect((await third.listTools()).tools.length).toBeGreaterThan(0);

    const calls = [second, third].map((c) =>
      c.callTool({ name: "run_prompt", arguments: { prompt: "wait" } }).catch((err: unknown) => err),
    );
    await expect.poll(async () => (await second.callTool({ name: "list_pending", arguments: {} })).isError).toBeFalsy();
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    expect(res.status).toBe(503);
    expect(await res.text()).toMatch(/holds 2 MCP sessions, all busy/);
    for (const c of [second, third]) await c.close();
    await Promise.all(calls);
  });
});
