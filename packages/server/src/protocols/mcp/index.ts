import type { Protocol } from "../protocol.js";
import { mcpEndpoint } from "./http-endpoint.js";

/** Where the MCP Streamable HTTP endpoint is served. */
export const MCP_PATH = "/mcp";

/** Arbor's tools over MCP Streamable HTTP at /mcp (the stdio server, `serveMcpStdio`, serves the same tools). */
export const mcp: Protocol = {
  name: "mcp",
  summary: "Arbor's tools (run_prompt, answer_permission, …) over MCP: Streamable HTTP at /mcp, and stdio for `arbor mcp serve`.",
  mount(ctx) {
    // MCP clients reach the same runtime over the MCP protocol, behind the same checks and token.
    const endpoint = mcpEndpoint(ctx, ctx.mcpSessions);
    return {
      routes: [],
      endpoints: [{ path: MCP_PATH, scope: "read", handle: (c) => endpoint.handle(c) }],
      close: () => endpoint.close(),
    };
  },
};
