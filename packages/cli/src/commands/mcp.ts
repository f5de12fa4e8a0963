import type { CommandGroup } from "./command.js";
import { mcpList } from "./mcp-list.js";
import { mcpServe } from "./mcp-serve.js";

export const mcpGroup: CommandGroup = {
  name: "mcp",
  summary: "MCP: list the configured MCP servers and their tools, or serve Arbor to MCP clients over stdio.",
  commands: [mcpList, mcpServe],
};
