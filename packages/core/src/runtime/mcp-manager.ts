import { join } from "node:path";
import type { Config } from "../config/schema.js";
import type { PendingElicitations } from "../mcp/elicitations.js";
import type { McpLoginAsks } from "../mcp/login-asks.js";
import { McpManager } from "../mcp/manager.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { FileMcpCredentials, MCP_CREDENTIALS_DIR } from "../store/file/mcp-credential-files.js";
import type { BlobStore } from "../tools/blob-store.js";
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

/** The runtime's MCP servers, when MCP is on and any is configured; their tools join the registry before each run starts. */
export function runtimeMcpManager(deps: McpManagerDeps): McpManager | undefined {
  const { config, options } = deps;
  if (!config.mcp.enabled || Object.keys(config.mcp.servers).length === 0) return undefined;
  const workspace = options.cwd ?? process.cwd();
  const loginRedirect = options.mcpLoginRedirect;
  return new McpManager({
    servers: config.mcp.servers,
    toolCacheTtl: config.mcp.toolCacheTtl,
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
    oauth: {
      credentials: options.mcpCredentials ?? new FileMcpCredentials(join(deps.home, MCP_CREDENTIALS_DIR)),
      // No redirect: a server that wants a login fails its calls with "run `arbor mcp login`".
      ...(loginRedirect ? { loginRedirect } : {}),
    },
  });
}
