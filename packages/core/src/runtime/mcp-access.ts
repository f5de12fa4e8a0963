import type { Config } from "../config/schema.js";
import type { McpManager, McpManagerOptions } from "../mcp/manager.js";
import type { McpCredentialStore } from "../mcp/oauth-credentials.js";
import type { McpOAuthOptions } from "../mcp/oauth-provider.js";

/**
 * How the runtime reaches its MCP manager: undefined when no server is configured, else the manager,
 * made at the first call. The manager and the MCP modules behind it load then: a runtime whose runs
 * use no MCP server never loads them.
 */
export type McpAccess = (() => Promise<McpManager>) | undefined;

/** The runtime's MCP manager, if servers are configured, made on first use; `close` closes it if it was. */
export function mcpAccess(
  config: Config["mcp"],
  options: () => Omit<McpManagerOptions, "servers" | "toolCacheTtl" | "oauth">,
  credentials: McpCredentialStore | undefined,
  home: string,
  loginRedirect?: McpOAuthOptions["loginRedirect"],
): { get: McpAccess; close(): Promise<void> } {
  let manager: Promise<McpManager> | undefined;
  const configured = config.enabled && Object.keys(config.servers).length > 0;
  const get = () =>
    (manager ??= import("./mcp-start.js").then(({ startMcp }) =>
      startMcp({ servers: config.servers, toolCacheTtl: config.toolCacheTtl, ...options() }, credentials, home, loginRedirect),
    ));
  return {
    get: configured ? get : undefined,
    // A manager that failed to start has nothing to close; its failure went to the call that started it.
    close: async () =>
      manager?.then(
        (m) => m.close(),
        () => undefined,
      ),
  };
}
