/**
 * `@arbor/core/tools`: tools and tool sources a host adds to a runtime beyond `builtinTools` — MCP
 * servers, the knowledge base, the goal tool and the explore sub-trace tool. Used by the CLI, the MCP
 * conformance script and the benchmarks.
 */
export { defineGoalTool } from "../goal/goal-tool.js";
export { KnowledgeBase } from "../knowledge/knowledge-base.js";
export type { RunAttachment } from "../loop/run-types.js";
export { type McpLoginResult, McpManager, type McpServerStatus } from "../mcp/manager.js";
export { type McpPromptCommand, mcpMentions, parseMcpPromptCommand } from "../mcp/mentions.js";
export {
  type McpCredentialKey,
  type McpCredentialStore,
  type McpCredentials,
  MemoryMcpCredentials,
} from "../mcp/oauth-credentials.js";
export type { McpAuthorizationResponse, McpAuthorizer, McpOAuthOptions } from "../mcp/oauth-provider.js";
export type { McpPromptInfo, McpPromptMessages } from "../mcp/prompts.js";
export type {
  McpResourceContent,
  McpResourceInfo,
  McpResourceListing,
  McpResourceRead,
  McpResourceTemplateInfo,
} from "../mcp/resources.js";
export {
  type Availability,
  bubblewrapBackend,
  noSandbox,
  Sandbox,
  type SandboxBackend,
  type SandboxOptions,
  type SandboxSettings,
  sandboxFromConfig,
} from "../sandbox/index.js";
export { exploreTool } from "../subagents/sub-agent-tools.js";
export type {
  CommandOutcome,
  CommandRequest,
  CommandRunner,
  Workspace,
  WorkspaceFiles,
} from "../tools/workspace.js";
