import type { CommandGroup } from "./command.js";
import { mcpList } from "./mcp-list.js";
import { mcpLogin } from "./mcp-login.js";
import { mcpLogout } from "./mcp-logout.js";
import { mcpServe } from "./mcp-serve.js";

export const mcpGroup: CommandGroup = {
  name: "mcp",
  summary:
    "MCP: list the configured MCP servers and their tools, log in to those behind OAuth, or serve Arbor to MCP clients over stdio.",
  commands: [mcpList, mcpLogin, mcpLogout, mcpServe],
};
