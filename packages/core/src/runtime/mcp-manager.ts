import type { Config } from "../config/schema.js";
import type { PendingElicitations } from "../mcp/elicitations.js";
import type { McpLoginAsks } from "../mcp/login-asks.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { BlobStore } from "../tools/blob-store.js";
import { type McpAccess, mcpAccess } from "./mcp-access.js";
import type { RuntimeOptions } from "./types.js";

export interface McpManagerDeps {
  config: Config;
  options: RuntimeOptions;
  home: string;
  blobs: BlobStore;
  sandbox: Sandbox;
  now(): number;
  elicitations: PendingElicitations;
  mcpLogins: McpLoginAsks;
}

/**
 * The runtime's MCP servers, when MCP is on and any is configured, reached through `get` (made, and
 * the MCP modules loaded, at its first call); their tools join the registry before each run starts.
 */
export function runtimeMcpManager(deps: McpManagerDeps): { get: McpAccess; close(): Promise<void> } {
  const { config, options } = deps;
  const workspace = options.cwd ?? process.cwd();
  const loginRedirect = options.mcpLoginRedirect;
  return mcpAccess(
    config.mcp,
    () => ({
      blobs: deps.blobs,
      now: deps.now,
      confine: { sandbox: deps.sandbox, workspace },
      workspace,
      // What a tool call sends a server carries its span's trace context, so the server's spans join the run's trace.
      ...(options.telemetry?.traceContext ? { traceContext: () => options.telemetry?.traceContext?.() } : {}),
      // A server's elicitation waits on a durable ask, answered like a permission ask.
      elicit: (request, signal, listener) => deps.elicitations.wait(request, signal, listener),
      // A login a server wants during a call is a durable ask too, when the browser has somewhere to come back to.
      ...(loginRedirect ? { login: (request, signal, listener) => deps.mcpLogins.wait(request, signal, listener) } : {}),
    }),
    options.mcpCredentials,
    deps.home,
    // No redirect: a server that wants a login fails its calls with "run `arbor mcp login`".
    loginRedirect,
  );
}
