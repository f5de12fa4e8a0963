import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { ConfigSchema, resolveConfig } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CancelledNotificationSchema,
  type ClientCapabilities,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { formElicitingServer, urlElicitingServer } from "../../core/test/mcp/servers.js";
import { serveMcpStdio } from "../src/index.js";
import { runPromptAnsweringOnce, textOfResult } from "./helpers/mcp-client.js";
import { planningModel } from "./helpers/models.js";
import { onCleanup, startServer, type TestServer } from "./helpers/server.js";

const TOKEN = "mcp-elicit-token";
type Params = ElicitRequest["params"];

/** An SDK client that declared form elicitation, answering each request with `reply`. */
async function elicitingClient(
  transport: Transport,
  reply: (params: Params) => Promise<ElicitResult> | ElicitResult,
  onRequest: (requestId: string | number) => void = () => {},
  elicitation: NonNullable<ClientCapabilities["elicitation"]> = { form: {} },
): Promise<Client> {
  const client = new Client({ name: "eliciting", version: "1.0.0" }, { capabilities: { elicitation } });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    onRequest(extra.requestId);
    return reply(request.params);
  });
  await client.connect(transport);
  onCleanup(() => client.close());
  return client;
}

/** An eliciting client that answers every elicitation with `answer`, keeping what it was asked in `asked`. */
async function answeringClient(
  transport: Transport,
  answer: ElicitResult,
  elicitation?: NonNullable<ClientCapabilities["elicitation"]>,
): Promise<{ client: Client; asked: Params[] }> {
  const asked: Params[] = [];
  const client = await elicitingClient(
    transport,
    (params) => {
      asked.push(params);
      return answer;
    },
    undefined,
    elicitation,
  );
  return { client, asked };
}

const overHttp = (server: TestServer) =>
  new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });

/** Arbor's stdio MCP server in this process, over a pair of pipes; the client's end of them. */
function overStdio(server: TestServer): Transport {
  const [toServer, toClient] = [new PassThrough(), new PassThrough()];
  const served = serveMcpStdio({ runtime: server.runtime, input: toServer, output: toClient });
  onCleanup(async () => {
    toServer.end();
    await served;
  });
  // The same newline-delimited JSON-RPC framing in the other direction.
  return new StdioServerTransport(toClient, toServer);
}

const readEnv = [[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]];

async function serverReadingEnv(): Promise<TestServer> {
  const server = await startServer({ script: readEnv, server: { token: TOKEN } });
  writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
  return server;
}

/**
 * An Arbor server whose model calls the tool `tool` of the downstream MCP server `name` (call id
 * `callId`), then says `answer`.
 */
async function serverCalling(
  downstream: { name: string; url: string; close(): Promise<void> },
  tool: string,
  callId: string,
  answer: string,
): Promise<TestServer> {
  // Registered before the Arbor server's, so closed after it.
  onCleanup(downstream.close);
  return startServer({
    script: [[toolCall(`mcp__${downstream.name}__${tool}`, {}, { id: callId })], [text(answer)]],
    runtime: {
      config: ConfigSchema.parse({
        mcp: { servers: { [downstream.name]: { url: downstream.url, timeoutMs: 30_000 } } },
        permission: { "mcp__*": "allow" },
      }),
    },
    server: { token: TOKEN },
  });
}

const runPrompt = async (client: Client, progress: string[] = []) =>
  (await client.callTool({ name: "run_prompt", arguments: { prompt: "Is the key set?" } }, undefined, {
    onprogress: (p) => progress.push(p.message ?? ""),
  })) as CallToolResult;

describe("run_prompt's asks as elicitations, for a client that declared the capability", () => {
  it.each([
    ["Streamable HTTP", overHttp],
    ["stdio", overStdio],
  ])("over %s: a permission ask is a form with a reply choice, and accepting once runs the tool", async (_name, over) => {
    const server = await serverReadingEnv();
    const { client, asked } = await answeringClient(over(server), { action: "accept", content: { reply: "once" } });
    const result = await runPrompt(client);
    expect(result.structuredContent).toMatchObject({ status: "done", text: "The key is set." });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toMatch(/read/);
    expect(asked[0]?.message).toMatch(/\.env/);
    expect(asked[0]).toMatchObject({
      requestedSchema: { properties: { reply: { enum: ["once", "always", "reject"] } }, required: ["reply"] },
    });
    // Answered once: nothing was approved for later.
    expect(await server.runtime.asks.listAllApprovals()).toEqual([]);
  });

  /** The tool results the session holds, as the model reads them on its next call. */
  const toolResults = async (server: TestServer, result: CallToolResult) => {
    const sessionId = (result.structuredContent as { session_id: string }).session_id;
    const parts = (await server.store.getActivePath(sessionId)).flatMap((e) =>
      e.type === "message" ? e.message.content.filter((p) => p.type === "tool-result") : [],
    );
    return JSON.stringify(parts);
  };

  it("declining rejects the call, as answer_permission's reject does: the file is not read and the run stops", async () => {
    const server = await serverReadingEnv();
    const client = await elicitingClient(overHttp(server), () => ({ action: "decline" }));
    const result = await runPrompt(client);
    expect(result.structuredContent).toMatchObject({ status: "done", steps: 1 });
    const results = await toolResults(server, result);
    expect(results).toMatch(/reject/i);
    expect(results).not.toMatch(/KEY=1/);
  });

  it("rejecting in the form with a message: the tool's result, which the model reads, carries it", async () => {
    const server = await serverReadingEnv();
    const client = await elicitingClient(overHttp(server), () => ({
      action: "accept",
      content: { reply: "reject", message: "Secrets stay closed." },
    }));
    const result = await runPrompt(client);
    // A rejection stops the run, whichever door it came through; the next turn's model reads why.
    expect(result.structuredContent).toMatchObject({ status: "done", steps: 1 });
    const results = await toolResults(server, result);
    expect(results).toMatch(/The user rejected read for \.env and said: Secrets stay closed\./);
    expect(results).not.toMatch(/KEY=1/);
  });

  it("a question is a form with its options, and the chosen one is the answer", async () => {
    const question = {
      question: "Which database?",
      options: [{ label: "PostgreSQL" }, { label: "SQLite" }],
      custom: false,
    };
    const server = await startServer({
      script: [[toolCall("question", question, { id: "q1" })], [text("Using SQLite.")]],
      server: { token: TOKEN },
    });
    const { client, asked } = await answeringClient(overHttp(server), { action: "accept", content: { answer: "SQLite" } });
    const result = await runPrompt(client);
    expect(result.structuredContent).toMatchObject({ status: "done", text: "Using SQLite." });
    expect(asked[0]).toMatchObject({
      message: "Which database?",
      requestedSchema: { properties: { answer: { enum: ["PostgreSQL", "SQLite"] } } },
    });
    const sessionId = (result.structuredContent as { session_id: string }).session_id;
    expect(JSON.stringify(await server.store.getActivePath(sessionId))).toMatch(/SQLite/);
  });

  it.each([
    ["approving", { decision: "approve" }, "approved", /All tests pass\./],
    ["rejecting with a comment", { decision: "reject", comment: "Not now." }, "rejected", /Not now\./],
  ] as const)(
    "a plan waiting for approval is a form with a decision and a comment: %s answers the plan",
    async (_name, content, planStatus, told) => {
      const config = resolveConfig([{ source: "test", value: { plan: { requireApproval: true } } }]);
      const server = await startServer({ runtime: { model: planningModel(), config }, server: { token: TOKEN } });
      const { client, asked } = await answeringClient(overHttp(server), { action: "accept", content });
      const result = (await client.callTool({ name: "run_prompt", arguments: { prompt: "check the repo" } })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ status: "done" });
      expect(asked).toEqual([
        expect.objectContaining({
          mode: "form",
          message: expect.stringMatching(/plan "Check the repo": 1\. Read the code; 2\. Run the tests/),
          requestedSchema: expect.objectContaining({
            properties: expect.objectContaining({ decision: expect.objectContaining({ enum: ["approve", "reject"] }) }),
            required: ["decision"],
          }),
        }),
      ]);
      // The plan was answered through the runtime as at any other door: nothing waits, and the session says how it went.
      expect(await server.runtime.asks.listPlans()).toEqual([]);
      const sessionId = (result.structuredContent as { session_id: string }).session_id;
      const path = JSON.stringify(await server.store.getActivePath(sessionId));
      expect(path).toContain(`"status":"${planStatus}"`);
      expect(path).toMatch(told);
    },
  );

  it("a downstream MCP server's form is passed through with its schema, and the filled-in form reaches it", async () => {
    const tickets = { name: "tickets", ...(await formElicitingServer()) };
    const server = await serverCalling(tickets, "file_ticket", "t1", "Filed.");
    const { client, asked } = await answeringClient(overHttp(server), {
      action: "accept",
      content: { title: "Printer on fire", priority: "high" },
    });
    const result = await runPrompt(client);
    expect(result.structuredContent).toMatchObject({ status: "done", text: "Filed." });
    expect(asked).toEqual([
      expect.objectContaining({
        message: "tickets: Describe the ticket to file.",
        requestedSchema: expect.objectContaining({
          required: ["title"],
          properties: expect.objectContaining({ priority: expect.objectContaining({ enum: ["low", "normal", "high"] }) }),
        }),
      }),
    ]);
    // The downstream server's tool answered with what the form was filled in with.
    expect(await toolResults(server, result)).toMatch(/action: accept.*Printer on fire/);
  });

  it("a downstream server's URL elicitation is URL mode for a client that shows those, and accepting it reaches the server", async () => {
    const accounts = { name: "accounts", ...(await urlElicitingServer()) };
    const server = await serverCalling(accounts, "connect_account", "c1", "Connected.");
    const { client, asked } = await answeringClient(overHttp(server), { action: "accept" }, { form: {}, url: {} });
    const result = await runPrompt(client);
    expect(result.structuredContent).toMatchObject({ status: "done", text: "Connected." });
    expect(asked).toEqual([
      expect.objectContaining({
        mode: "url",
        url: "https://example.test/connect?state=abc",
        elicitationId: "elic-1",
        message: "accounts: Sign in to Example to connect your account.",
      }),
    ]);
    expect(await toolResults(server, result)).toMatch(/action: accept/);
  });

  it("an ask answered at another door first withdraws the elicitation, and the run goes on", async () => {
    const server = await serverReadingEnv();
    let shown: (requestId: string | number) => void = () => {};
    const elicited = new Promise<string | number>((resolve) => {
      shown = resolve;
    });
    // A person who never answers in this client: the request stays open until the server withdraws it.
    const client = await elicitingClient(overHttp(server), () => new Promise<ElicitResult>(() => {}), shown);
    let withdrawn: (requestId: string | number | undefined) => void = () => {};
    const cancelled = new Promise<string | number | undefined>((resolve) => {
      withdrawn = resolve;
    });
    // Heard here rather than through the handler's signal: the SDK's client ignores a cancellation of
    // request id 0 (a falsy-id check), and this is the server's first request to it.
    client.setNotificationHandler(CancelledNotificationSchema, (n) => withdrawn(n.params.requestId));
    const run = runPrompt(client);
    const requestId = await elicited;
    const [pending] = await server.runtime.asks.listPermissions();
    await server.runtime.asks.answerPermission(pending?.id ?? "", "once");
    expect(await cancelled).toBe(requestId);
    expect((await run).structuredContent).toMatchObject({ status: "done", text: "The key is set." });
  });

  it("a client without the capability is not sent one: the ask is a progress message for answer_permission", async () => {
    const server = await serverReadingEnv();
    const client = new Client({ name: "plain", version: "1.0.0" });
    await client.connect(overHttp(server));
    onCleanup(() => client.close());
    const { result, answers } = await runPromptAnsweringOnce(client, "Is the key set?");
    expect(answers).toHaveLength(1);
    expect(textOfResult(result)).toBe("The key is set.");
  });
});
