import type { McpLoginAsks } from "../mcp/login-asks.js";
import { pendingMcpLoginOf } from "../mcp/login-asks.js";
import type { McpManager, McpServerStatus } from "../mcp/manager.js";
import type { McpAuthorizationResponse } from "../mcp/oauth-provider.js";
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
  /**
   * Finishes a login a run asked the person for (an `mcp_login` ask), from the browser's answer at
   * the callback: the ask is found by the answer's `state`, the code exchanged with the kept PKCE
   * verifier, the tokens kept, and the ask answered, so the waiting run (in any process over the
   * store) calls the server again. An error from the authorization server (the person refused)
   * declines the ask. Throws `mcp_login_failed` (no login waits for that state; a bad answer) having
   * left the ask as it was, except a refusal.
   */
  finishLogin(
    response: McpAuthorizationResponse,
  ): Promise<{ server: string; sessionId: string; askId: string; loggedIn: boolean }>;
}

export function mcpApi(mcp: McpAccess, logins: McpLoginAsks): RuntimeMcp {
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
    async finishLogin(response) {
      const record = await logins.byState(response.state);
      const { server } = pendingMcpLoginOf(record);
      const done = { server, sessionId: record.sessionId, askId: record.id, loggedIn: false };
      if (response.error !== undefined) {
        const reason = `the authorization server answered ${response.error}${response.errorDescription ? ` (${response.errorDescription})` : ""}`;
        await logins.answer(record, { action: "decline", reason });
        return done;
      }
      await (await use(server)).finishLogin(server, response);
      await logins.answer(record, { action: "accept" });
      return { ...done, loggedIn: true };
    },
  };
}
