import { join } from "node:path";
import { McpManager, type McpManagerOptions } from "../mcp/manager.js";
import type { McpCredentialStore } from "../mcp/oauth-credentials.js";
import type { McpOAuthOptions } from "../mcp/oauth-provider.js";
import { FileMcpCredentials, MCP_CREDENTIALS_DIR } from "../store/file/mcp-credential-files.js";

/** The runtime's MCP manager, its logins kept in the Arbor home unless the caller keeps them. */
export function startMcp(
  options: Omit<McpManagerOptions, "oauth">,
  credentials: McpCredentialStore | undefined,
  home: string,
  loginRedirect?: McpOAuthOptions["loginRedirect"],
): McpManager {
  return new McpManager({
    ...options,
    oauth: {
      credentials: credentials ?? new FileMcpCredentials(join(home, MCP_CREDENTIALS_DIR)),
      // Without a redirect, a server that wants a login fails its calls with "run `arbor mcp login`".
      ...(loginRedirect ? { loginRedirect } : {}),
    },
  });
}
