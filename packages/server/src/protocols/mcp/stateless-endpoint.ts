import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { principalOf } from "../../http/principal.js";
import { type ArborMcpDeps, createArborMcpServer } from "./arbor-mcp-server.js";
import { jsonRpcError, type McpEndpoint } from "./http-endpoint.js";
import { StartedTasks } from "./run-tasks.js";

/**
 * `/mcp` of a cluster instance: the Streamable HTTP transport without sessions (no `Mcp-Session-Id`),
 * one Arbor MCP server per request, so a load balancer may send each request to any instance.
 * Nothing an MCP session would hold is kept: who asks comes with every request (the API's token),
 * what a run did is in the store, and a run started here is queued like `/api/chat`'s. What needs a
 * stream that outlives a request is not offered: no GET stream (405, which the spec lets a client
 * take as "no server-initiated messages") and no resources/subscribe. A call's progress and result
 * stream on its own response.
 */
export function statelessMcpEndpoint(deps: ArborMcpDeps): McpEndpoint {
  /** Servers whose response still streams: closed when their response ends, or on shutdown. */
  const live = new Set<McpServer>();
  // A task a request here started is known at once to the next request this instance gets.
  const startedTasks = new StartedTasks();
  return {
    async handle(c) {
      if (c.req.method !== "POST") {
        return jsonRpcError(
          405,
          "This /mcp is stateless (a cluster instance): it keeps no session and offers no standing stream; send requests with POST.",
          { allow: "POST" },
        );
      }
      const principal = principalOf(c);
      const server = createArborMcpServer({
        ...deps,
        startedTasks,
        ...(principal === undefined ? {} : { principal }),
        stateless: true,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      live.add(server);
      // Only once the response has been read or dropped: closing the server ends its stream.
      const finish = () => {
        if (live.delete(server)) void server.close().catch(() => {});
      };
      try {
        const response = await transport.handleRequest(c.req.raw);
        if (!response.body) {
          finish();
          return response;
        }
        const body = response.body.pipeThrough(new TransformStream({ flush: finish, cancel: finish }));
        return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
      } catch (err) {
        finish();
        throw err;
      }
    },
    async close() {
      const all = [...live];
      live.clear();
      await Promise.all(all.map((s) => s.close().catch(() => {})));
    },
  };
}
