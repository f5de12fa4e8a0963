import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/schema.js";
import { ArborError } from "../errors.js";
import type { TraceContextFields } from "../loop/extension.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { BlobStore } from "../tools/blob-store.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/tool.js";
import { McpConnection, type McpConnectionState } from "./connection.js";
import type { McpLoginListener } from "./login-asks.js";
import { type McpElicitor, type McpLoginAsker, McpResultCache, mcpTool } from "./mcp-tool.js";
import type { McpAuthorizationResponse, McpLoginAsk, McpOAuthOptions } from "./oauth-provider.js";
import { getPrompt, listPrompts, type McpPromptInfo, type McpPromptMessages } from "./prompts.js";
import { type McpResourceListing, type McpResourceRead, McpResources } from "./resources.js";
import { workspaceRoots } from "./roots.js";
import { unknownServer } from "./unknown-server.js";

export { unknownServer } from "./unknown-server.js";

/**
 * How long runs start without asking a server whose start or listing failed; `status()` and a call
 * of one of its known tools still try it at once.
 */
export const FAILED_RETRY_MS = 30_000;

export interface McpManagerOptions {
  servers: Readonly<Record<string, McpServerConfig>>;
  /** Seconds a tool list and a read-only result are reused. */
  toolCacheTtl: number;
  blobs?: BlobStore;
  now?: () => number;
  /** Confines every stdio server to this workspace. */
  confine?: { sandbox: Sandbox; workspace: string };
  /** Asks the person for what a server elicits during a tool call; without it every elicitation is cancelled. */
  elicit?: McpElicitor;
  /** Asks the person to log in when a server wants a login during a tool call; without it the call fails with `mcp_login_required`. */
  login?: McpLoginAsker;
  /** Where `url` servers' OAuth logins are kept, and (for `arbor mcp login`) who takes the user through one. */
  oauth?: McpOAuthOptions;
  /** Answers servers' `roots/list` with this directory (the runs' workspace); without it, no roots. */
  workspace?: string;
  /** The trace context of the span current at a request (see `RunObserver.traceContext`), sent in its `_meta`. */
  traceContext?: () => TraceContextFields | undefined;
}

/** What `arbor mcp login` did: whether the server asked for a login at all, and what it offers now. */
export interface McpLoginResult {
  server: string;
  /** False: the server answered without asking for a login, so nothing was stored. */
  loggedIn: boolean;
  scope?: string;
  tools: number;
}

/** One server as `arbor mcp list` shows it. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  target: string;
  enabled: boolean;
  state: McpConnectionState;
  /** A running stdio server's process id. */
  pid?: number;
  tools: { name: string; mcpName: string; description?: string; readOnly: boolean }[];
}

interface Slot {
  readonly connection: McpConnection;
  readonly config: McpServerConfig;
  /** The tools last listed, kept while a refresh fails so a flaky server keeps its tools. */
  tools: Tool[] | undefined;
  listedAt: number;
  /** When the last start or listing failed (0: it did not), so runs do not each wait on a broken server. */
  failedAt: number;
  stale: boolean;
  refreshing: Promise<void> | undefined;
  /** The definitions this server has in the registry, by Arbor name. */
  registered: Map<string, AnyToolDefinition>;
}

/**
 * The runtime's MCP servers: each connected on first use, its tool list cached for the TTL (and
 * dropped when the server says it changed), its tools kept in the runtime's tool registry as
 * `mcp__<server>__<tool>`. A server that cannot be reached keeps the tools it last listed (their
 * calls fail with an error naming it) and is tried again on the next sync or call.
 */
export class McpManager {
  private readonly slots = new Map<string, Slot>();
  private readonly cache: McpResultCache;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** Resources read through `readResource`, kept while the server is subscribed to for them. */
  readonly resources: McpResources;

  constructor(private readonly options: McpManagerOptions) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.toolCacheTtl * 1000;
    this.cache = new McpResultCache(this.ttlMs, this.now);
    this.resources = new McpResources(this.ttlMs, this.now);
    for (const [name, config] of Object.entries(options.servers)) {
      const slot: Slot = {
        config,
        connection: new McpConnection(
          name,
          config,
          () => {
            slot.stale = true;
            this.cache.dropServer(name);
          },
          options.confine,
          options.oauth,
        ),
        tools: undefined,
        listedAt: 0,
        failedAt: 0,
        stale: true,
        refreshing: undefined,
        registered: new Map(),
      };
      const { workspace, traceContext } = options;
      slot.connection.hooks = {
        ...(workspace !== undefined ? { roots: () => workspaceRoots(workspace) } : {}),
        ...(traceContext ? { traceContext } : {}),
        onResourceUpdated: (uri) => this.resources.updated(name, uri),
      };
      this.slots.set(name, slot);
    }
  }

  /** A server's resources and resource templates. */
  listResources(server: string, signal?: AbortSignal): Promise<McpResourceListing> {
    return this.resources.list(server, this.usable(server).connection, signal);
  }

  /** One resource's contents; reused while the server is subscribed to for it and has not said it changed. */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpResourceRead> {
    return this.resources.read(server, this.usable(server).connection, uri, signal);
  }

  /** A server's prompts and their arguments. */
  listPrompts(server: string, signal?: AbortSignal): Promise<McpPromptInfo[]> {
    return listPrompts(this.usable(server).connection, signal);
  }

  /** A server's prompt filled in with `args`. */
  getPrompt(
    server: string,
    name: string,
    args: Readonly<Record<string, string>> = {},
    signal?: AbortSignal,
  ): Promise<McpPromptMessages> {
    return getPrompt(server, this.usable(server).connection, name, args, signal);
  }

  /** A configured, enabled server; an unknown one is named with the configured ones. */
  private usable(server: string): Slot {
    const slot = this.slots.get(server);
    if (!slot) throw unknownServer(server, [...this.slots.keys()]);
    if (!slot.config.enabled)
      throw new ArborError("invalid_input", `MCP server "${server}" is disabled: set mcp.servers.${server}.enabled to true.`);
    return slot;
  }

  /**
   * Brings the registry's MCP tools up to date; a server that fails is left as it was, never thrown.
   * For a run (`sessionId`), a server whose tools are not known yet and that wants a login asks for
   * it (an `mcp_login` ask the run waits on); declined, the run goes on without its tools.
   */
  async sync(registry: ToolRegistry, signal?: AbortSignal, sessionId?: string, listener?: McpLoginListener): Promise<void> {
    const login = this.options.login;
    await Promise.all(
      [...this.slots.entries()].map(async ([name, slot]) => {
        if (!slot.config.enabled) return;
        const due = slot.stale || this.now() - slot.listedAt >= this.ttlMs;
        const resting = slot.failedAt > 0 && this.now() - slot.failedAt < FAILED_RETRY_MS;
        // Known tools stay offered while the server refuses: the call that needs one asks for the login.
        const asker =
          login && sessionId !== undefined && slot.tools === undefined
            ? (url: URL) => login({ sessionId, server: name, url: url.href }, signal ?? new AbortController().signal, listener)
            : undefined;
        if (due && !resting) await this.refresh(slot, signal, asker).catch(() => {});
        this.register(name, slot, registry);
      }),
    );
  }

  /** Every configured server with its state and tools, connecting to those not yet started. */
  async status(signal?: AbortSignal): Promise<McpServerStatus[]> {
    const out: McpServerStatus[] = [];
    for (const [name, slot] of this.slots) {
      if (slot.config.enabled && (slot.stale || this.now() - slot.listedAt >= this.ttlMs)) {
        await this.refresh(slot, signal).catch(() => {});
      }
      const { config } = slot;
      out.push({
        name,
        transport: config.url !== undefined ? "http" : "stdio",
        target: config.url ?? [config.command, ...(config.args ?? [])].join(" "),
        enabled: config.enabled,
        state: slot.connection.state,
        ...(slot.connection.pid !== undefined ? { pid: slot.connection.pid } : {}),
        tools: (slot.tools ?? []).map((tool) => ({
          name: mcpTool(name, tool, this.toolDeps(slot)).name,
          mcpName: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          readOnly: tool.annotations?.readOnlyHint === true,
        })),
      });
    }
    return out;
  }

  /**
   * Logs in to one `url` server afresh: its old tokens are dropped (its client registration kept),
   * then it is connected, which takes the user through the authorizer when the server asks for a login.
   */
  async login(server: string, signal?: AbortSignal): Promise<McpLoginResult> {
    const slot = this.slotFor(server);
    const login = slot.connection.login;
    if (!login) throw new ArborError("invalid_input", `MCP server "${server}" is not a "url" server: only those log in.`);
    await login.invalidateCredentials("tokens");
    await slot.connection.close();
    await this.refresh(slot, signal);
    const tokens = await login.tokens();
    return {
      server,
      loggedIn: tokens !== undefined,
      ...(typeof tokens?.scope === "string" ? { scope: tokens.scope } : {}),
      tools: slot.tools?.length ?? 0,
    };
  }

  /** Finishes a login a run asked for (the browser's answer at the callback): the server's tokens are kept. */
  async finishLogin(server: string, response: McpAuthorizationResponse): Promise<void> {
    await this.slotFor(server).connection.finishLogin(response);
  }

  /** Forgets a server's login (tokens, registration, discovery); false when there was none. */
  async logout(server: string): Promise<boolean> {
    const login = this.slotFor(server).connection.login;
    if (!login) throw new ArborError("invalid_input", `MCP server "${server}" is not a "url" server: only those log in.`);
    await this.slotFor(server).connection.close();
    return login.forget();
  }

  private slotFor(server: string): Slot {
    const slot = this.slots.get(server);
    if (!slot) {
      const known = [...this.slots.keys()].join(", ") || "none";
      throw new ArborError("invalid_input", `No MCP server "${server}" is configured (configured: ${known}).`);
    }
    return slot;
  }

  async close(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => slot.connection.close()));
  }

  private refresh(slot: Slot, signal?: AbortSignal, asker?: McpLoginAsk): Promise<void> {
    slot.refreshing ??= (async () => {
      try {
        // Cleared before listing: a change announced while the list is in flight makes it stale again.
        slot.stale = false;
        slot.tools = await slot.connection.listTools(signal, asker);
        slot.listedAt = this.now();
        slot.failedAt = 0;
      } catch (err) {
        slot.stale = true;
        // A run that cancelled its wait says nothing about the server.
        if (!signal?.aborted) slot.failedAt = this.now();
        throw err;
      } finally {
        slot.refreshing = undefined;
      }
    })();
    return slot.refreshing;
  }

  private toolDeps(slot: Slot) {
    const { blobs, elicit, login } = this.options;
    return { connection: slot.connection, cache: this.cache, blobs, elicit, login };
  }

  /** Puts the server's listed tools in the registry and takes out those it no longer lists. */
  private register(server: string, slot: Slot, registry: ToolRegistry): void {
    const wanted = new Map<string, AnyToolDefinition>();
    for (const tool of slot.tools ?? []) {
      const def = mcpTool(server, tool, this.toolDeps(slot));
      // Two MCP names that clean up to the same Arbor name: the first listed keeps it.
      if (!wanted.has(def.name)) wanted.set(def.name, def);
    }
    for (const [name, def] of slot.registered) {
      if (wanted.has(name) && registry.get(name) === def && sameTool(def, wanted.get(name))) {
        wanted.delete(name);
        continue;
      }
      if (registry.get(name) === def) registry.unregister(name);
      slot.registered.delete(name);
    }
    for (const [name, def] of wanted) {
      // A built-in or a caller's tool of the same name wins over the server's.
      if (registry.get(name)) continue;
      registry.register(def);
      slot.registered.set(name, def);
    }
  }
}

/** The error for a server name no configuration has, naming the nearest and the configured ones. */

function sameTool(a: AnyToolDefinition, b: AnyToolDefinition | undefined): boolean {
  return b !== undefined && a.description === b.description && JSON.stringify(a.inputSchema) === JSON.stringify(b.inputSchema);
}
