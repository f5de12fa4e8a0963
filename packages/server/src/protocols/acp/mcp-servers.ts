import type { McpServer } from "@agentclientprotocol/sdk";
import { ArborError, type Config } from "@arbor/core";

/** MCP servers by name, as `arbor.json`'s `mcp.servers` holds them. */
export type McpServers = Config["mcp"]["servers"];

/** A name Arbor accepts (it becomes part of tool names: `mcp__<name>__<tool>`): 1-20 letters, digits or `-`. */
function serverName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 20);
  return cleaned === "" ? "editor" : cleaned;
}

/**
 * The MCP servers an editor passes with a session, in `arbor.json`'s terms: stdio servers as
 * commands, HTTP servers by URL (Streamable HTTP). Arbor speaks no SSE transport, so such a server
 * is refused rather than left out unseen.
 */
export function mcpServersOf(servers: readonly McpServer[]): McpServers {
  const out: McpServers = {};
  for (const server of servers) {
    const name = serverName(server.name);
    if (!("type" in server) || server.type === undefined) {
      out[name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((v) => [v.name, v.value])),
        timeoutMs: 60_000,
        enabled: true,
      };
    } else if (server.type === "http") {
      out[name] = {
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
        timeoutMs: 60_000,
        enabled: true,
      };
    } else {
      throw new ArborError(
        "invalid_input",
        `MCP server "${server.name}" uses the SSE transport, which Arbor does not speak: give it as a stdio or HTTP server.`,
      );
    }
  }
  return out;
}

/** A stable key for a set of servers, so sessions passing the same ones share a runtime. */
export function serversKey(servers: McpServers): string {
  return JSON.stringify(Object.entries(servers).sort(([a], [b]) => a.localeCompare(b)));
}
