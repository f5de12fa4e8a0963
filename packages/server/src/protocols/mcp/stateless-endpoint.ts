import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { principalOf } from "../../http/principal.js";
import { type ArborMcpDeps, createArborMcpServer } from "./arbor-mcp-server.js";
import { jsonRpcError, type McpEndpoint } from "./http-endpoint.js";
import { StartedTasks } from "./run-tasks.js";
import { followSubscriptions } from "./shared-subscriptions.js";

const SESSION_HEADER = "mcp-session-id";

/** Whether a POST body is an initialize request (read from a copy: the transport reads the body). */
async function isInitialize(request: Request): Promise<boolean> {
  try {
    const body = (await request.clone().json()) as unknown;
    return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
  } catch {
    return false;
  }
}

/**
 * `/mcp` of a cluster instance: the Streamable HTTP transport without server-side sessions, one Arbor
 * MCP server per request, so a load balancer may send each request to any instance. Nothing an MCP
 * session would hold is kept in a process: who asks comes with every request (the API's token), what
 * a run did is in the store, and a run started here is queued like `/api/chat`'s. The initialize
 * response names the client (an `Mcp-Session-Id` no instance needs to know): its resource
 * subscriptions are kept in the cluster's database under it, and a GET stream, on whichever instance,
 * is told of updates to them. A call's progress and result stream on its own response.
 */
export function statelessMcpEndpoint(deps: ArborMcpDeps): McpEndpoint {
  /** Servers whose response still streams: closed when their response ends, or on shutdown. */
  const live = new Set<McpServer>();
  // A task a request here started is known at once to the next request this instance gets.
  const startedTasks = new StartedTasks();
  return {
    async handle(c) {
      const client = c.req.header(SESSION_HEADER);
      const method = c.req.method;
      if (method === "DELETE" && client !== undefined && deps.cluster) {
        // The client is done: what it subscribed to goes with it.
        await deps.cluster.mcpSubscriptions.remove(client, principalOf(c)?.id);
        return new Response(null, { status: 200 });
      }
      const streams = method === "GET" && client !== undefined && deps.cluster !== undefined;
      if (method !== "POST" && !streams) {
        return jsonRpcError(
          405,
          "This /mcp is stateless (a cluster instance): send requests with POST; a GET stream (for resource updates) needs the Mcp-Session-Id the initialize response set.",
          { allow: "POST" },
        );
      }
      const principal = principalOf(c);
      const naming = method === "POST" && client === undefined && (await isInitialize(c.req.raw)) ? randomUUID() : undefined;
      const server = createArborMcpServer({
        ...deps,
        startedTasks,
        ...(principal === undefined ? {} : { principal }),
        ...((client ?? naming) === undefined ? {} : { mcpClient: client ?? naming }),
        stateless: true,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      live.add(server);
      let unfollow = () => {};
      // Only once the response has been read or dropped: closing the server ends its stream.
      const finish = () => {
        unfollow();
        if (live.delete(server)) void server.close().catch(() => {});
      };
      try {
        const response = await transport.handleRequest(c.req.raw);
        if (!response.body) {
          finish();
          return response;
        }
        if (streams && response.ok && client !== undefined && deps.cluster) {
          unfollow = await followSubscriptions(
            server,
            { runtime: deps.runtime, store: deps.store ?? deps.runtime.store, principal },
            client,
            deps.cluster.mcpSubscriptions,
          );
        }
        const body = response.body.pipeThrough(new TransformStream({ flush: finish, cancel: finish }));
        const headers = new Headers(response.headers);
        if (naming !== undefined) headers.set(SESSION_HEADER, naming);
        return new Response(body, { status: response.status, statusText: response.statusText, headers });
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
