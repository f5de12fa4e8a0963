/** Tool names the model sees are limited to these characters and this length by the registry. */
const MAX_TOOL_NAME = 64;

/**
 * `mcp__<server>__<tool>`: the prefix keeps MCP tools apart from built-ins and lets one permission
 * rule (`mcp__fs__*`) cover a whole server. Characters a tool name may not hold become `_`. Pure.
 */
export function mcpToolName(server: string, tool: string): string {
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, "_");
  return `mcp__${server}__${safe}`.slice(0, MAX_TOOL_NAME);
}

/** The server part of an `mcp__<server>__<tool>` name, or undefined for any other tool. */
export function mcpServerOf(toolName: string): string | undefined {
  const match = /^mcp__([A-Za-z0-9-]+)__/.exec(toolName);
  return match?.[1];
}
