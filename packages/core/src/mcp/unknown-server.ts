import { ArborError } from "../errors.js";
import { nearestKey } from "../model/validate.js";

/** A server name no configured server has, with the nearest one when it looks like a typo. */
export function unknownServer(server: string, configured: readonly string[]): ArborError {
  const near = nearestKey(server, configured);
  return new ArborError(
    "mcp_server_not_found",
    `No MCP server "${server}" is configured${near ? ` (did you mean "${near}"?)` : ""}; configured: ${configured.join(", ") || "none (add one under mcp.servers)"}.`,
    { server, ...(near ? { nearest: near } : {}) },
  );
}
