import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/schema.js";
import { ArborError } from "../errors.js";
import type { TraceContextFields } from "../loop/extension.js";
import type { Sandbox, SandboxedCall } from "../sandbox/sandbox.js";
import { CallHandlers, type McpCallOptions } from "./call-handlers.js";
import { loadSdk, type Sdk } from "./client-sdk.js";
import { openTransport } from "./client-transport.js";
import { isMachineAuth } from "./machine-auth.js";
import type { McpAuthorizationResponse, McpLoginAsk, McpOAuthOptions } from "./oauth-provider.js";
import { McpOAuthProvider } from "./oauth-provider.js";
import { ServerFailures } from "./server-failures.js";
import { callToolAsTask, type TaskCallHooks } from "./tasks.js";

// What a call hands the connection, kept beside the per-call handlers that receive it.
export type { McpCallOptions, McpElicitHandler } from "./call-handlers.js";

/** Where a server stands, as `arbor mcp list` shows it. */
export type McpConnectionState =
  | { status: "idle" }
  | { status: "connecting" }
  | { status: "ready"; serverName?: string; serverVersion?: string }
  | { status: "failed"; error: string };

/**
 * What the manager answers and hears beside tool calls (see roots.ts and resources.ts): the roots a
 * server asks for, and its word that a resource (or the list of them) changed.
 */
export interface McpClientHooks {
  roots?: () => { uri: string; name?: string }[];
  /**
   * The W3C trace context of the span current when a request is sent (a run's tool call), which goes
   * in the request's `_meta` as `traceparent` and `tracestate` (SEP-414), so the server's spans join the trace.
   */
  traceContext?: () => TraceContextFields | undefined;
  onResourceUpdated?: (uri: string) => void;
  onResourcesChanged?: () => void;
}

/**
 * How many logins one start or one request may go through: a server that asks for a new scope
 * (step-up) gets one more, one that keeps refusing what it was given is not asked forever.
 */
const AUTH_ATTEMPTS = 2;

/** Client identity sent in `initialize`. */
export const MCP_CLIENT_INFO = { name: "arbor", version: "0.1.0" } as const;

/**
 * One configured MCP server, connected on first use. A server that exits, drops its connection or
 * fails to start is marked failed and started again on the next use, so one broken server costs
 * the calls made while it is down and never the run.
 */
export class McpConnection {
  private sdk: Sdk | undefined;
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private current: McpConnectionState = { status: "idle" };
  private stdio: StdioClientTransport | undefined;
  private http: StreamableHTTPClientTransport | undefined;
  private provider: McpOAuthProvider | undefined;
  private sandboxed: SandboxedCall | undefined;
  /** The elicitation handlers and login askers of the calls in flight, which what the server asks of the person goes to. */
  private readonly inFlight = new CallHandlers();
  private readonly failures: ServerFailures;
  /** Set by the manager once, before the first start. */
  hooks: McpClientHooks = {};

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    /** Told when the server says its tool list changed. */
    private readonly onToolsChanged: () => void,
    /** Confines a stdio server to the workspace (see sandbox/); without it the server runs with Arbor's authority. */
    private readonly confine?: { sandbox: Sandbox; workspace: string },
    /** OAuth for a `url` server that asks for it; without it such a server fails to start. */
    private readonly oauth?: McpOAuthOptions,
  ) {
    this.failures = new ServerFailures(name, config);
  }

  /** The server's OAuth login (a `url` server with OAuth options only). */
  get login(): McpOAuthProvider | undefined {
    if (this.config.url === undefined || !this.oauth || isMachineAuth(this.config)) return undefined;
    if (!this.provider) {
      this.provider = new McpOAuthProvider(this.name, { ...this.config, url: this.config.url }, this.oauth);
      this.provider.asker = () => this.inFlight.loginAsker();
    }
    return this.provider;
  }

  get state(): McpConnectionState {
    return this.current;
  }

  /** The stdio server's process id while it runs. */
  get pid(): number | undefined {
    return this.client ? (this.stdio?.pid ?? undefined) : undefined;
  }

  /** The server's tools; `asker` puts a login the server wants meanwhile to the person (a run that needs them). */
  async listTools(signal?: AbortSignal, asker?: McpLoginAsk): Promise<Tool[]> {
    return this.inFlight.during({ onLogin: asker }, async () => this.listAll(await this.connect(signal), signal));
  }

  private async listAll(client: Client, signal?: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.guard(() =>
        client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.config.timeoutMs,
          ...(signal ? { signal } : {}),
        }),
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * One request of the caller's own (resources, prompts) on the started client, its failures named
   * like a tool call's; what the server declared it offers comes along, for the caller to check.
   */
  async request<T>(
    send: (
      client: Client,
      options: { timeout: number; signal?: AbortSignal },
      traced: { _meta?: Record<string, unknown> },
    ) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const client = await this.connect(signal);
    const meta = this.meta();
    return this.guard(() =>
      send(client, { timeout: this.config.timeoutMs, ...(signal ? { signal } : {}) }, meta ? { _meta: meta } : {}),
    );
  }

  /** A request's `_meta`: the caller's own fields, and the trace context of the span current now. */
  private meta(own?: Record<string, unknown>): Record<string, unknown> | undefined {
    const trace = this.hooks.traceContext?.();
    if (!trace) return own;
    return { ...own, ...trace };
  }

  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const meta = this.meta(options.meta);
    // The login asker is registered before connecting: a server never logged in to asks for its login while it starts.
    return this.inFlight.during(options, async () => {
      const client = await this.connect(options.signal);
      const result = await this.guard(() =>
        client.callTool({ name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, {
          signal: options.signal,
          timeout: this.config.timeoutMs,
          // A server that keeps reporting progress is working, not hung (nor is one waiting on the user).
          resetTimeoutOnProgress: true,
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        }),
      );
      return result as CallToolResult;
    });
  }

  /** Finishes a login a run asked the person for (the browser's answer at the callback): the tokens are kept. */
  async finishLogin(response: McpAuthorizationResponse): Promise<void> {
    const provider = this.login;
    const url = this.config.url;
    if (!provider || url === undefined)
      throw new ArborError("invalid_input", `MCP server "${this.name}" is not a "url" server: only those log in.`);
    this.sdk ??= await loadSdk();
    const sdk = this.sdk;
    await provider.finishLogin(response, (code) => sdk.auth(provider, { serverUrl: new URL(url), authorizationCode: code }));
  }

  /** Whether the started server offers tasks for tool calls. */
  get offersToolTasks(): boolean {
    return this.client?.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
  }

  /** Calls a tool as an MCP task, or follows the task an earlier run created (see tasks.ts). */
  async callToolTask(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
    hooks: TaskCallHooks,
  ): Promise<CallToolResult> {
    return this.inFlight.during(options, () => {
      // Each request on the client of the moment: a server that dropped its connection while the task worked is started again.
      const send = <T>(request: (client: Client) => Promise<T>) =>
        this.guard(async () => request(await this.connect(options.signal)));
      const { signal } = options;
      const meta = this.meta(options.meta);
      return callToolAsTask(send, tool, args, { signal, timeout: this.config.timeoutMs, ...(meta ? { meta } : {}) }, hooks);
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    this.current = { status: "idle" };
    await client?.close().catch(() => {});
    await this.release();
  }

  private async release(): Promise<void> {
    const call = this.sandboxed;
    this.sandboxed = undefined;
    await call?.close();
  }

  private connect(signal?: AbortSignal): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.start().finally(() => {
      this.connecting = undefined;
    });
    const pending = this.connecting;
    if (!signal) return pending;
    // The start goes on for the next caller; only this caller stops waiting.
    return new Promise<Client>((resolve, reject) => {
      const onAbort = () => reject(new ArborError("aborted", "[Tool execution was interrupted]"));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private async start(): Promise<Client> {
    this.current = { status: "connecting" };
    this.failures.reset();
    this.sdk ??= await loadSdk();
    const sdk = this.sdk;
    let client: Client;
    for (let attempt = 0; ; attempt++) {
      const logins = this.provider?.logins ?? 0;
      // Elicitation is answered through an ask; in form mode the SDK fills in the defaults of fields left out.
      client = new sdk.Client(MCP_CLIENT_INFO, {
        capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, roots: {} },
      });
      client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => this.inFlight.elicit(request.params, extra.signal));
      // The workspace is the one root: a server that works on files is pointed there.
      client.setRequestHandler(sdk.ListRootsRequestSchema, () => ({ roots: this.hooks.roots?.() ?? [] }));
      await this.release();
      try {
        await client.connect(await this.transport(sdk), { timeout: this.config.timeoutMs });
        break;
      } catch (err) {
        await client.close().catch(() => {});
        await this.release();
        // A login just brought a code back: exchange it and start again, now with a token.
        if (attempt < AUTH_ATTEMPTS && (await this.exchange(logins).catch(() => false))) continue;
        const error =
          err instanceof ArborError && err.code.startsWith("mcp_login") ? err : this.failures.unavailable("did not start", err);
        this.current = { status: "failed", error: error.message };
        throw error;
      }
    }
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.current = { status: "failed", error: this.failures.describe("closed the connection") };
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.onToolsChanged());
    client.setNotificationHandler(sdk.ResourceUpdatedNotificationSchema, (n) => this.hooks.onResourceUpdated?.(n.params.uri));
    client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, () => this.hooks.onResourcesChanged?.());
    const version = client.getServerVersion();
    this.current = {
      status: "ready",
      ...(version ? { serverName: version.name, serverVersion: version.version } : {}),
    };
    this.client = client;
    return client;
  }

  /** Opens the server's transport (see client-transport.ts), keeping what a login, the pid and a release act on. */
  private async transport(sdk: Sdk): Promise<Transport> {
    const login = this.login;
    const opened = await openTransport(sdk, this.name, this.config, {
      ...(login ? { login } : {}),
      ...(this.confine ? { confine: this.confine } : {}),
      onStderr: (chunk) => this.failures.keep(chunk),
    });
    switch (opened.kind) {
      case "http":
        this.http = opened.transport;
        break;
      case "stdio":
        this.stdio = opened.transport;
        this.sandboxed = opened.sandboxed;
        break;
    }
    return opened.transport;
  }

  /**
   * Exchanges the code a login in the middle of a start or a request brought back; false when none
   * did. A login the person finished through the callback since the request was sent (`logins` then)
   * kept the tokens already: the request is worth sending again.
   */
  private async exchange(logins: number): Promise<boolean> {
    if (this.provider && this.provider.logins !== logins) return true;
    const code = this.provider?.takeCode();
    if (code === undefined || !this.http) return false;
    await this.http.finishAuth(code);
    return true;
  }

  /**
   * Runs one request, turning the SDK's failures into errors that name this server. A request the
   * server refused for want of a scope (step-up) is sent again once the login for it is done.
   */
  private async guard<T>(request: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const logins = this.provider?.logins ?? 0;
      try {
        return await request();
      } catch (err) {
        if (attempt < AUTH_ATTEMPTS && (await this.exchange(logins))) continue;
        // A request runs only on a started server, so the SDK is loaded by now.
        throw this.failures.translate(this.sdk, err);
      }
    }
  }
}
