import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "@arbor/core/store";
import { text } from "@arbor/testkit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectMcp, textOfResult } from "./helpers/mcp-client.js";
import { errorOf, startServer, type TestServer } from "./helpers/server.js";

/**
 * The scope of every route, decided here once: a route added without a decision (or with another
 * one) fails the first test, so no front door is opened by accident.
 */
const SCOPES: Record<string, Scope> = {
  "GET /api/openapi.json": "read",
  "GET /api/info": "read",
  "GET /api/mcp/servers": "read",
  "GET /api/mcp/servers/:server/resources": "read",
  "GET /api/mcp/servers/:server/prompts": "read",
  "GET /api/sessions": "read",
  "POST /api/sessions": "run",
  "GET /api/sessions/:id": "read",
  "DELETE /api/sessions/:id": "admin",
  "POST /api/sessions/:id/leaf": "run",
  "POST /api/sessions/:id/compact": "run",
  "POST /api/sessions/:id/summary": "run",
  "POST /api/sessions/:id/fork": "run",
  "POST /api/sessions/:id/labels": "run",
  "GET /api/sessions/:id/approvals": "read",
  "POST /api/sessions/:id/approvals/revoke": "admin",
  "GET /api/sessions/:id/timeline": "read",
  "POST /api/sessions/:id/revert": "admin",
  "POST /api/sessions/:id/unrevert": "admin",
  "GET /api/sessions/:id/debug": "read",
  "GET /api/sessions/:id/messages": "read",
  "DELETE /api/sessions/:id/messages/:message_id": "admin",
  "GET /api/sessions/:id/tool-stats": "read",
  "GET /api/sessions/:id/tool-calls": "read",
  "GET /api/sessions/:id/stream": "read",
  "POST /api/sessions/:id/abort": "run",
  "GET /api/traces/:id": "read",
  "GET /api/traces/:id/messages": "read",
  "GET /api/traces/:id/watch": "read",
  "PATCH /api/traces/:id/replay": "run",
  "GET /api/permissions": "read",
  "POST /api/permissions/:id": "run",
  "GET /api/asks": "read",
  "POST /api/asks/:id": "run",
  "GET /api/approvals": "read",
  "DELETE /api/approvals/:id": "admin",
  "POST /api/plan/approve": "run",
  "GET /api/plan/pending": "read",
  "GET /api/cache/stats": "read",
  "POST /api/cache/clear": "admin",
  "POST /api/chat": "run",
  "POST /api/ui/chat": "run",
  "GET /api/ui/chat/:id/stream": "read",
  "POST /api/ag-ui": "run",
  "GET /api/ag-ui/capabilities": "read",
  "GET /api/sessions/:id/diff": "read",
  "POST /v1/responses": "run",
  "GET /v1/responses/:id": "read",
  "POST /v1/responses/compact": "run",
  "GET /v1/models": "read",
};

const ORDER: Scope[] = ["read", "run", "admin"];
const holds = (held: Scope, needed: Scope) => ORDER.indexOf(held) >= ORDER.indexOf(needed);

interface World {
  server: TestServer;
  /** A session of project A (the server's workspace) and one of project B. */
  inA: string;
  inB: string;
  /** Tokens limited to project A, by scope. */
  tokens: Record<Scope, string>;
}

async function world(): Promise<World> {
  const server = await startServer({ script: [[text("hi")], [text("title")]] });
  const projectB = join(server.cwd, "..", "other");
  mkdirSync(projectB);
  const inA = (await server.store.createSession({ cwd: server.cwd })).id;
  const inB = (await server.store.createSession({ cwd: projectB })).id;
  const tokens = {} as Record<Scope, string>;
  for (const scope of ORDER) {
    tokens[scope] = (await server.runtime.access.addToken({ scopes: [scope], projects: [server.cwd], name: scope })).token;
  }
  return { server, inA, inB, tokens };
}

/** The path with its parameters filled: the session for `:id` (an ask or approval id elsewhere). */
function pathOf(route: string, sessionId: string): string {
  const path = route.split(" ")[1] as string;
  const sessionPath = /^\/api\/(sessions|traces|ui\/chat)\/:id/.test(path);
  return path
    .replace(":id", sessionPath ? sessionId : "perm_x")
    .replace(":message_id", "m_1")
    .replace(":asset", "x.js");
}

const mcp = (server: TestServer, token: string) => connectMcp(server, token, "scopes");

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
describe("the scope suite: every route and protocol method with each scope and another project's token", () => {
  it("every route outside the public ones has exactly the scope decided above", async () => {
    const { server } = await world();
    const { createServer } = await import("../src/index.js");
    const routes = createServer({ runtime: server.runtime }).routes.filter((r) => !r.spec.public);
    const declared = Object.fromEntries(routes.map((r) => [`${r.spec.method} ${r.spec.path}`, r.spec.scope ?? "(none)"]));
    expect(declared).toEqual(SCOPES);
    // The OpenAPI document says the same, for clients.
    const doc = (await (await server.api("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { "x-arbor-scope"?: string }>>;
    };
    const documented: Record<string, string> = {};
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (op["x-arbor-scope"]) documented[`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`] = op["x-arbor-scope"];
      }
    }
    expect(documented).toEqual(SCOPES);
  });

  it("each route answers 403 scope_required to a token without its scope, and serves one with it", {
    timeout: 120_000,
  }, async () => {
    const { server, inA, tokens } = await world();
    for (const [route, needed] of Object.entries(SCOPES)) {
      const method = route.split(" ")[0] as string;
      for (const held of ORDER) {
        const res = await server.api(pathOf(route, inA), {
          method,
          token: tokens[held],
          ...(method === "GET" || method === "DELETE" ? {} : { json: {} }),
        });
        const status = res.status;
        if (holds(held, needed)) {
          // Past the door: whatever the route says of an empty body, it is not an auth failure.
          expect([401, 403], `${route} with ${held}: ${status} ${await res.clone().text()}`).not.toContain(status);
          await res.body?.cancel();
        } else {
          const error = await errorOf(res);
          expect(error, `${route} with ${held}`).toMatchObject({ status: 403, code: "scope_required" });
          expect(error.message).toContain(`"${needed}"`);
        }
      }
    }
  });

  it("an admin token of project A gets 404 for every route naming a session of project B", { timeout: 120_000 }, async () => {
    const { server, inB, tokens } = await world();
    for (const route of Object.keys(SCOPES)) {
      const method = route.split(" ")[0] as string;
      const path = pathOf(route, inB);
      const named = path.includes(inB)
        ? path
        : ["GET /api/permissions", "GET /api/asks", "GET /api/approvals", "GET /api/plan/pending"].includes(route)
          ? `${path}?session_id=${inB}`
          : undefined;
      if (named === undefined) continue;
      const res = await server.api(named, {
        method,
        token: tokens.admin,
        ...(method === "GET" || method === "DELETE" ? {} : { json: {} }),
      });
      expect(await errorOf(res), route).toMatchObject({ status: 404, code: "session_not_found" });
    }
    // Sessions named in a body are the runtime's to check, with the same answer.
    const chat = await server.api("/api/chat", { json: { message: "hi", session_id: inB }, token: tokens.admin });
    expect(await errorOf(chat), "chat").toMatchObject({ status: 404, code: "session_not_found" });
    const ui = await server.api("/api/ui/chat", {
      json: { id: inB, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }] },
      token: tokens.admin,
    });
    expect(await errorOf(ui), "ui").toMatchObject({ status: 404, code: "session_not_found" });
    const plan = await server.api("/api/plan/approve", {
      json: { plan_id: `${inB}:0123abcd`, approved: true },
      token: tokens.admin,
    });
    expect(await errorOf(plan), "plan").toMatchObject({ status: 404, code: "session_not_found" });
    // Listings leave the other project out.
    const listed = (await (await server.api("/api/sessions", { token: tokens.read })).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id)).not.toContain(inB);
    expect(listed.sessions.length).toBe(1);
  });

  it("unknown and revoked tokens are 401; a run token's chat records who sent it and who created the session", {
    timeout: 120_000,
  }, async () => {
    const { server, tokens } = await world();
    // A server without a token of its own trusts loopback: an unknown token acts as no token there.
    expect((await server.api("/api/sessions", { token: "arbor_nope" })).status).toBe(200);
    const run = await server.api("/api/chat", { json: { message: "hi" }, token: tokens.run });
    expect(run.status).toBe(200);
    const id = run.headers.get("x-arbor-session-id") as string;
    await run.text();
    const meta = await server.store.getSession(id);
    const [record] = (await server.runtime.access.listTokens()).filter((t) => t.name === "run");
    expect(meta?.createdBy).toBe(record?.id);
    const sent = (await server.store.getActivePath(id)).flatMap((e) =>
      e.type === "message" && e.message.role === "user" ? [(e.message as { sentBy?: string }).sentBy] : [],
    );
    expect(sent).toEqual([record?.id]);
    await server.runtime.access.revokeToken(record?.id as string);
    // A server without a token of its own trusts loopback: a revoked token acts as no token there.
    expect((await server.api("/api/sessions", { token: tokens.run })).status).toBe(200);
  });

  it("with a server token, unknown and revoked tokens are 401", { timeout: 120_000 }, async () => {
    const server = await startServer({ server: { token: "server-admin" } });
    const { token, record } = await server.runtime.access.addToken({ scopes: ["read"] });
    expect((await server.api("/api/sessions", { token })).status).toBe(200);
    expect(await errorOf(await server.api("/api/sessions", { token: "arbor_nope" }))).toMatchObject({ status: 401 });
    await server.runtime.access.revokeToken(record.id);
    expect(await errorOf(await server.api("/api/sessions", { token }))).toMatchObject({ status: 401, code: "unauthorized" });
    expect((await server.api("/api/sessions", { token: "server-admin" })).status).toBe(200);
  });

  it("every MCP tool checks the same scopes and projects as the routes", { timeout: 120_000 }, async () => {
    const { server, inA, inB, tokens } = await world();
    const reader = await mcp(server, tokens.read);
    const listed = await call(reader, "list_sessions", {});
    expect((listed.structuredContent as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual([inA]);
    expect(textOfResult(await call(reader, "read_session", { session_id: inB }))).toMatch(/^session_not_found/);
    expect(textOfResult(await call(reader, "read_trace", { trace_id: inB }))).toMatch(/^session_not_found/);
    expect((await call(reader, "read_session", { session_id: inA })).isError).toBeFalsy();
    for (const [name, args] of [
      ["run_prompt", { prompt: "hi" }],
      ["run_prompt", { prompt: "hi", session_id: inA }],
      ["continue_from_entry", { prompt: "hi", session_id: inA, entry_id: "e1" }],
      ["fork_session", { session_id: inA, entry_id: "e1" }],
      ["answer_permission", { id: "perm_x", reply: "once" }],
      ["answer_plan", { plan_id: `${inA}:0123abcd`, approved: true }],
    ] as const) {
      const result = await call(reader, name, args);
      expect(textOfResult(result), name).toMatch(/^scope_required/);
    }
    const admin = await mcp(server, tokens.admin);
    expect(textOfResult(await call(admin, "run_prompt", { prompt: "hi", session_id: inB }))).toMatch(/^session_not_found/);
    expect(textOfResult(await call(admin, "fork_session", { session_id: inB, entry_id: "e1" }))).toMatch(/^session_not_found/);
    expect(textOfResult(await call(admin, "list_pending", { session_id: inB }))).toMatch(/^session_not_found/);
    const runner = await mcp(server, tokens.run);
    expect(textOfResult(await call(runner, "list_pending", {}))).toContain("permissions");
    // An MCP session belongs to the principal that opened it: another token's request in it is refused.
    const opened = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.admin}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": (runner.transport as StreamableHTTPClientTransport).sessionId as string,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(opened.status).toBe(404);
  });

  it("MCP resources, subscriptions, prompts and completions show only the sessions of the principal's projects", {
    timeout: 120_000,
  }, async () => {
    const { server, inA, inB, tokens } = await world();
    const reader = await mcp(server, tokens.read);
    const listed = (await reader.listResources()).resources.map((r) => r.uri).filter((u) => u.startsWith("arbor://sessions/"));
    expect(listed).toEqual([`arbor://sessions/${inA}`]);
    for (const uri of [
      `arbor://sessions/${inB}`,
      `arbor://sessions/${inB}/tree`,
      `arbor://sessions/${inB}/messages`,
      `arbor://sessions/${inB}/entries/e1`,
      `arbor://traces/${inB}/goals`,
    ]) {
      await expect(reader.readResource({ uri }), uri).rejects.toThrow(/session_not_found/);
    }
    expect((await reader.readResource({ uri: `arbor://sessions/${inA}` })).contents[0]).toMatchObject({
      text: expect.stringContaining(inA),
    });
    await expect(reader.subscribeResource({ uri: `arbor://sessions/${inB}/messages` })).rejects.toThrow(/session_not_found/);
    await reader.subscribeResource({ uri: `arbor://sessions/${inA}/messages` });
    await expect(reader.getPrompt({ name: "build", arguments: { task: "x", session_id: inB } })).rejects.toThrow(
      /session_not_found/,
    );
    const complete = async (uri: string, name: string, context?: Record<string, string>) =>
      (
        await reader.complete({
          ref: { type: "ref/resource", uri },
          argument: { name, value: "" },
          ...(context ? { context: { arguments: context } } : {}),
        })
      ).completion.values;
    expect(await complete("arbor://sessions/{session_id}", "session_id")).toEqual([inA]);
    // Project B's session has an entry to complete, which this principal must not be offered.
    await server.store.appendMessage(inB, { role: "user", content: "secret" });
    expect(await server.store.listEntries(inB)).toHaveLength(1);
    expect(await complete("arbor://sessions/{session_id}/entries/{entry_id}", "entry_id", { session_id: inB })).toEqual([]);
    const prompt = await reader.complete({
      ref: { type: "ref/prompt", name: "build" },
      argument: { name: "session_id", value: "" },
    });
    expect(prompt.completion.values).toEqual([inA]);
  });
});
