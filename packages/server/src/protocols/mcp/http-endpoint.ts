import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import { type ArborMcpDeps, createArborMcpServer } from "./arbor-mcp-server.js";

export interface McpEndpoint {
  handle(c: Context): Promise<Response>;
  /** Ends every MCP session (their in-flight calls are cancelled). */
  close(): Promise<void>;
}

function jsonRpcError(status: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * `/mcp`: the Streamable HTTP transport of the MCP spec, one Arbor MCP server per MCP session
 * (`Mcp-Session-Id`), so progress and cancellation reach the call they belong to. Authentication
 * is the API's: the security middleware runs before this like before every route.
 */
export function mcpEndpoint(deps: ArborMcpDeps): McpEndpoint {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return {
    async handle(c) {
      const id = c.req.header("mcp-session-id");
      if (id !== undefined) {
        const transport = sessions.get(id);
        if (!transport)
          return jsonRpcError(
            404,
            `MCP session ${id} is not known here (it ended, or the server restarted); initialize a new one.`,
          );
        return transport.handleRequest(c.req.raw);
      }
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, transport);
        },
        onsessionclosed: (sessionId) => {
          sessions.delete(sessionId);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await createArborMcpServer(deps).connect(transport);
      // Anything but an initialize request without a session is refused by the transport itself.
      return transport.handleRequest(c.req.raw);
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((t) => t.close().catch(() => {})));
    },
  };
}
