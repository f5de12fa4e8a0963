import type { McpManager, McpServerStatus } from "../mcp/manager.js";
import type { McpPromptInfo, McpPromptMessages } from "../mcp/prompts.js";
import type { McpResourceListing, McpResourceRead } from "../mcp/resources.js";
import { unknownServer } from "../mcp/unknown-server.js";
import type { McpAccess } from "./mcp-access.js";

/**
 * `runtime.mcp`: what front doors show of the configured MCP servers (`arbor mcp`, the inspector) and
 * use to fill in a prompt before sending it. To attach a resource or use a prompt in a run, pass
 * `attachments` or `mcpPrompt` in the run's input: the runtime reads them itself.
 */
export interface RuntimeMcp {
  /** The configured servers, their state and tools (starting those not yet started). */
  servers(signal?: AbortSignal): Promise<McpServerStatus[]>;
  /** A server's resources and resource templates. */
  resources(server: string, signal?: AbortSignal): Promise<McpResourceListing>;
  /** One resource's contents (reused while the server is subscribed to for it and says nothing changed). */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpResourceRead>;
  /** A server's prompts with their arguments. */
  prompts(server: string, signal?: AbortSignal): Promise<McpPromptInfo[]>;
  /** A server's prompt filled in: the messages it expands to. */
  prompt(server: string, name: string, args?: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<McpPromptMessages>;
}

export function mcpApi(mcp: McpAccess): RuntimeMcp {
  // No manager: MCP is off or no server is configured, so every name is unknown.
  const use = async (server: string): Promise<McpManager> => {
    if (!mcp) throw unknownServer(server, []);
    return mcp();
  };
  return {
    servers: async (signal) => (mcp ? (await mcp()).status(signal) : []),
    resources: async (server, signal) => (await use(server)).listResources(server, signal),
    readResource: async (server, uri, signal) => (await use(server)).readResource(server, uri, signal),
    prompts: async (server, signal) => (await use(server)).listPrompts(server, signal),
    prompt: async (server, name, args = {}, signal) => (await use(server)).getPrompt(server, name, args, signal),
  };
}
