import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type ElicitRequest, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../../src/config/schema.js";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { RunEvent } from "../../src/model/run-events.js";

/** The MCP servers from npm the tests start, from the workspace's node_modules (never fetched at run time). */
const modules = fileURLToPath(new URL("../../../../node_modules/@modelcontextprotocol/", import.meta.url));

export const EVERYTHING_BIN = `${modules}server-everything/dist/index.js`;
export const FILESYSTEM_BIN = `${modules}server-filesystem/dist/index.js`;

export function everythingStdio(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_BIN, "stdio"], timeoutMs: 30_000, enabled: true, ...overrides };
}

export function filesystemStdio(root: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [FILESYSTEM_BIN, root], timeoutMs: 30_000, enabled: true, ...overrides };
}

/**
 * Plays a run's events and aborts it at its first `tool_progress` (a long MCP operation under way);
 * gives the events and when the abort was sent, so a test can check the call ended soon after.
 */
export async function abortAtFirstProgress(handle: RunHandle): Promise<{ events: RunEvent[]; abortedAt: number }> {
  const events: RunEvent[] = [];
  let abortedAt = 0;
  for await (const event of handle) {
    events.push(event);
    if (event.type === "tool_progress" && abortedAt === 0) {
      abortedAt = Date.now();
      handle.abort();
    }
  }
  return { events, abortedAt };
}

/**
 * An MCP server of the SDK's own (McpServer over Streamable HTTP on 127.0.0.1) whose one tool,
 * `connect_account`, asks the client to open a URL (elicitation in URL mode) and answers with the
 * action the client gave back; `url` is its endpoint.
 */
export function urlElicitingServer(): Promise<{ url: string; close(): Promise<void> }> {
  return elicitingServer("accounts", "connect_account", {
    mode: "url",
    message: "Sign in to Example to connect your account.",
    url: "https://example.test/connect?state=abc",
    elicitationId: "elic-1",
  });
}

/**
 * A server (`tickets`) whose tool `file_ticket` asks for a small form of every field type the
 * person fills in: a required title, a priority (a choice, default normal), an estimate (a number),
 * urgent (a boolean, default false).
 */
export function formElicitingServer(): Promise<{ url: string; close(): Promise<void> }> {
  return elicitingServer("tickets", "file_ticket", {
    mode: "form",
    message: "Describe the ticket to file.",
    requestedSchema: {
      type: "object",
      properties: {
        title: { type: "string", title: "Title", description: "One line" },
        priority: { type: "string", title: "Priority", enum: ["low", "normal", "high"], default: "normal" },
        estimate: { type: "number", title: "Estimate (hours)" },
        urgent: { type: "boolean", title: "Urgent", default: false },
      },
      required: ["title"],
    },
  });
}

/**
 * An MCP server of the SDK's own (McpServer over Streamable HTTP on 127.0.0.1) named `name` whose
 * one tool, `tool`, sends `params` as an elicitation and answers with the action the client gave
 * back (and the content, when any); `url` is its endpoint.
 */
export async function elicitingServer(
  name: string,
  tool: string,
  params: ElicitRequest["params"],
): Promise<{ url: string; close(): Promise<void> }> {
  return sdkHttpServer(() => {
    const server = new McpServer({ name, version: "1.0.0" });
    server.registerTool(tool, { description: `Asks the user (${params.mode ?? "form"}).` }, async (extra) => {
      const answer = await extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema);
      const content = answer.content === undefined ? "" : `\ncontent: ${JSON.stringify(answer.content)}`;
      return { content: [{ type: "text", text: `action: ${answer.action}${content}` }] };
    });
    return server;
  });
}

/**
 * An MCP server of the SDK's own over Streamable HTTP on 127.0.0.1: `make` builds the McpServer
 * of each MCP session (what it offers); `url` is its endpoint, `close` ends every session and the listener.
 */
export async function sdkHttpServer(make: () => McpServer): Promise<{ url: string; close(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createHttpServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (!transport) {
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          transports.set(sessionId, fresh);
        },
      });
      await make().connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
