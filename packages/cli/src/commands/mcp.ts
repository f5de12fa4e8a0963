import type { CommandGroup } from "./command.js";
import { mcpPrompts, mcpResources } from "./mcp-catalog.js";
import { mcpList } from "./mcp-list.js";
import { mcpLogin } from "./mcp-login.js";
import { mcpLogout } from "./mcp-logout.js";
import { mcpServe } from "./mcp-serve.js";

export const mcpGroup: CommandGroup = {
  name: "mcp",
  summary:
    "MCP: list the configured MCP servers, their tools, resources and prompts, log in to those behind OAuth, or serve Arbor to MCP clients over stdio.",
  commands: [mcpList, mcpResources, mcpPrompts, mcpLogin, mcpLogout, mcpServe],
};
