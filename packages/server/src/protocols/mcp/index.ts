import type { EndpointOperation, Protocol } from "../protocol.js";
import { mcpEndpoint } from "./http-endpoint.js";
import { statelessMcpEndpoint } from "./stateless-endpoint.js";

/** Where the MCP Streamable HTTP endpoint is served. */
export const MCP_PATH = "/mcp";

const SESSION_HEADER_NOTE =
  "Every request after `initialize` carries the `Mcp-Session-Id` header the initialize response set; an unknown or ended session is 404. " +
  "On a cluster (`arbor serve --cluster`) /mcp is stateless: any instance answers any request; the `Mcp-Session-Id` its initialize response sets only names the client, whose resource subscriptions the cluster keeps and tells on its GET stream, on any instance.";

/** /mcp as the OpenAPI document lists it: MCP's Streamable HTTP transport, its messages JSON-RPC 2.0. */
const MCP_OPERATIONS: Record<"get" | "post" | "delete", EndpointOperation> = {
  post: {
    summary: "Send MCP JSON-RPC messages",
    description:
      "A JSON-RPC 2.0 request, notification or response of the Model Context Protocol (`initialize`, `tools/list`, " +
      "`tools/call` of run_prompt, answer_permission, …; `resources/read` of arbor://sessions/…, `prompts/get` of an agent, `completion/complete`). A request is answered as JSON or as a server-sent event stream, " +
      `as the client's Accept header allows. ${SESSION_HEADER_NOTE}`,
    body: "application/json",
    responses: {
      200: { description: "The JSON-RPC response, or a stream of messages ending with it.", contentType: "text/event-stream" },
      202: { description: "A notification or response was accepted." },
      400: { description: "Not a JSON-RPC message, or a request without a session." },
      404: { description: "The session is unknown or has ended: initialize again." },
      503: { description: "Every MCP session slot has a call running." },
    },
  },
  get: {
    summary: "Listen for MCP server messages",
    description: `A server-sent event stream of messages the server sends on its own (notifications). ${SESSION_HEADER_NOTE}`,
    responses: {
      200: { description: "The stream.", contentType: "text/event-stream" },
      404: { description: "The session is unknown or has ended." },
      405: { description: "A cluster instance's stateless /mcp offers a stream only to a client it named (Mcp-Session-Id)." },
    },
  },
  delete: {
    summary: "End an MCP session",
    description: `Ends the session and its Arbor MCP server; runs it started go on. ${SESSION_HEADER_NOTE}`,
    responses: {
      200: { description: "Ended." },
      404: { description: "The session is unknown or has ended." },
      405: { description: "A cluster instance's stateless /mcp without the Mcp-Session-Id it set." },
    },
  },
};

const MCP_DOCS = { tag: "mcp", url: "https://modelcontextprotocol.io/specification" };

/** Arbor's tools over MCP Streamable HTTP at /mcp (the stdio server, `serveMcpStdio`, serves the same tools). */
export const mcp: Protocol = {
  name: "mcp",
  summary:
    "Arbor's tools (run_prompt, answer_permission, …), sessions and traces as resources and agents as prompts over MCP: Streamable HTTP at /mcp, and stdio for `arbor mcp serve`.",
  mount(ctx) {
    // MCP clients reach the same runtime over the MCP protocol, behind the same checks and token. A
    // cluster instance keeps no MCP session, so any instance answers any request.
    const endpoint = ctx.cluster ? statelessMcpEndpoint(ctx) : mcpEndpoint(ctx, ctx.mcpSessions);
    return {
      routes: [],
      endpoints: [
        { path: MCP_PATH, scope: "read", handle: (c) => endpoint.handle(c), operations: MCP_OPERATIONS, docs: MCP_DOCS },
      ],
      close: () => endpoint.close(),
    };
  },
};
