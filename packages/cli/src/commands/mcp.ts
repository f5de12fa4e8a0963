import type { CommandGroup } from "./command.js";
import { mcpList } from "./mcp-list.js";

export const mcpGroup: CommandGroup = {
  name: "mcp",
  summary: "MCP: list the configured MCP servers and their tools.",
  commands: [mcpList],
};
