import { stat } from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Progress, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/schema.js";
import { ArborError } from "../errors.js";
import type { TraceContextFields } from "../loop/extension.js";
import type { Sandbox, SandboxedCall } from "../sandbox/sandbox.js";
import type { ElicitationAnswer, ElicitationForm, ElicitationRequest } from "./elicitations.js";
import { isMachineAuth, machineAuthProvider } from "./machine-auth.js";
import type { McpAuthorizationResponse, McpLoginAsk, McpOAuthOptions } from "./oauth-provider.js";
import { McpOAuthProvider } from "./oauth-provider.js";
import { callToolAsTask, type TaskCallHooks } from "./tasks.js";

/**
 * The SDK's client side, loaded the first time a server is started: most commands configure no MCP
 * server, and loading the SDK up front would slow every start of the CLI.
 */
async function loadSdk() {
  const [client, stdio, http, types, auth] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ElicitRequestSchema: types.ElicitRequestSchema,
    ListRootsRequestSchema: types.ListRootsRequestSchema,
    ResourceUpdatedNotificationSchema: types.ResourceUpdatedNotificationSchema,
    ResourceListChangedNotificationSchema: types.ResourceListChangedNotificationSchema,
    auth: auth.auth,
  };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

/** Where a server stands, as `arbor mcp list` shows it. */
export type McpConnectionState =
  | { status: "idle" }
  | { status: "connecting" }
  | { status: "ready"; serverName?: string; serverVersion?: string }
  | { status: "failed"; error: string };

export interface McpCallOptions {
  signal: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** Sent as the request's `_meta`: what the server may use beside the arguments (the call's idempotency key). */
  meta?: Record<string, unknown>;
  /** Answers a form the server asks the user to fill in during this call (MCP elicitation). */
  onElicit?: McpElicitHandler;
  /** Asks the person to log in when the server wants a login during this call (an `mcp_login` ask). */
  onLogin?: McpLoginAsk;
}

/** What answers a server's elicitation during a call (a form to fill in, or a URL to open): the person, through an ask. */
export type McpElicitHandler = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

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

/** How many bytes of a stdio server's stderr are kept to explain a failed start or a crash. */
const STDERR_TAIL = 2000;

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
  private stderr = "";
  private current: McpConnectionState = { status: "idle" };
  private stdio: StdioClientTransport | undefined;
  private http: StreamableHTTPClientTransport | undefined;
  private provider: McpOAuthProvider | undefined;
  private sandboxed: SandboxedCall | undefined;
  /** The elicitation handlers of the calls in flight, which a server's elicitation request goes to. */
  private readonly elicitors = new Set<McpElicitHandler>();
  /** The login askers of the calls in flight: a login the server wants is put to the person by one of them. */
  private readonly loginAskers = new Set<McpLoginAsk>();
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
  ) {}

  /** The server's OAuth login (a `url` server with OAuth options only). */
  get login(): McpOAuthProvider | undefined {
    if (this.config.url === undefined || !this.oauth || isMachineAuth(this.config)) return undefined;
    if (!this.provider) {
      this.provider = new McpOAuthProvider(this.name, { ...this.config, url: this.config.url }, this.oauth);
      this.provider.asker = () => this.loginAskers.values().next().value;
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
    if (asker) this.loginAskers.add(asker);
    try {
      return await this.listAll(await this.connect(signal), signal);
    } finally {
      if (asker) this.loginAskers.delete(asker);
    }
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
    const elicit = options.onElicit;
    const asker = options.onLogin;
    if (elicit) this.elicitors.add(elicit);
    const meta = this.meta(options.meta);
    // Before connecting: a server never logged in to asks for its login while it starts.
    if (asker) this.loginAskers.add(asker);
    try {
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
    } finally {
      if (elicit) this.elicitors.delete(elicit);
      if (asker) this.loginAskers.delete(asker);
    }
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
    const elicit = options.onElicit;
    const asker = options.onLogin;
    if (elicit) this.elicitors.add(elicit);
    if (asker) this.loginAskers.add(asker);
    try {
      // Each request on the client of the moment: a server that dropped its connection while the task worked is started again.
      const send = <T>(request: (client: Client) => Promise<T>) =>
        this.guard(async () => request(await this.connect(options.signal)));
      const { signal } = options;
      const meta = this.meta(options.meta);
      return await callToolAsTask(send, tool, args, { signal, timeout: this.config.timeoutMs, ...(meta ? { meta } : {}) }, hooks);
    } finally {
      if (elicit) this.elicitors.delete(elicit);
      if (asker) this.loginAskers.delete(asker);
    }
  }

  /**
   * A server's elicitation request: the protocol does not say which of our calls it belongs to, so
   * it goes to the one call in flight; with none, or several (whose user cannot be told apart), it is
   * cancelled. Both modes: a form (no mode is form), and a URL the person opens.
   */
  private async elicit(
    params: { mode?: string; message: string; requestedSchema?: unknown; url?: string; elicitationId?: string },
    signal: AbortSignal,
  ): Promise<ElicitationAnswer> {
    const [handler, ...others] = this.elicitors;
    if (!handler || others.length > 0) return { action: "cancel" };
    if (params.mode === "url") {
      // The SDK has checked the request against the URL mode's schema: both are there.
      const { message, url = "", elicitationId = "" } = params;
      return handler({ mode: "url", message, url, elicitationId }, signal);
    }
    if (params.mode !== undefined && params.mode !== "form") return { action: "cancel" };
    return handler({ mode: "form", message: params.message, requestedSchema: params.requestedSchema as ElicitationForm }, signal);
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
    this.stderr = "";
    this.sdk ??= await loadSdk();
    const sdk = this.sdk;
    let client: Client;
    for (let attempt = 0; ; attempt++) {
      const logins = this.provider?.logins ?? 0;
      // Elicitation is answered through an ask; in form mode the SDK fills in the defaults of fields left out.
      client = new sdk.Client(MCP_CLIENT_INFO, {
        capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, roots: {} },
      });
      client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => this.elicit(request.params, extra.signal));
      // The workspace is the one root: a server that works on files is pointed there.
      client.setRequestHandler(sdk.ListRootsRequestSchema, () => ({ roots: this.hooks.roots?.() ?? [] }));
      await this.release();
      try {
        const transport = await this.transport(sdk);
        await client.connect(transport, { timeout: this.config.timeoutMs });
        break;
      } catch (err) {
        await client.close().catch(() => {});
        await this.release();
        // A login just brought a code back: exchange it and start again, now with a token.
        if (attempt < AUTH_ATTEMPTS && (await this.exchange(logins).catch(() => false))) continue;
        const error =
          err instanceof ArborError && err.code.startsWith("mcp_login") ? err : this.unavailable("did not start", err);
        this.current = { status: "failed", error: error.message };
        throw error;
      }
    }
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.current = { status: "failed", error: this.describe("closed the connection") };
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

  private async transport(sdk: Sdk): Promise<Transport> {
    const { config } = this;
    if (config.url !== undefined) {
      // fetch refuses a header with a character above U+00FF ("Cannot convert argument to a
      // ByteString"); a pasted placeholder such as "Bearer …" is the usual one: name it.
      for (const [name, value] of Object.entries(config.headers ?? {})) {
        const at = [...value].findIndex((c) => (c.codePointAt(0) ?? 0) > 0xff);
        if (at >= 0)
          throw new Error(
            `header ${name} holds ${JSON.stringify([...value][at])} at character ${at + 1}, which HTTP headers cannot carry: put the real value in mcp.servers.${this.name}.headers.${name}`,
          );
      }
      const url = new URL(config.url);
      const authProvider = this.login;
      if (authProvider && (await authProvider.expired())) {
        // Renewed before use rather than after a refusal; a refresh token that no longer works leads to a login.
        await sdk.auth(authProvider, { serverUrl: url });
        const code = authProvider.takeCode();
        if (code !== undefined) await sdk.auth(authProvider, { serverUrl: url, authorizationCode: code });
      }
      // The client credentials grant: tokens come from the token endpoint whenever needed, no login.
      const machine = await machineAuthProvider(this.name, config);
      this.http = new sdk.StreamableHTTPClientTransport(url, {
        ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
        ...(machine ? { authProvider: machine } : authProvider ? { authProvider } : {}),
      });
      return this.http;
    }
    // A missing cwd makes spawn fail with ENOENT, which reads as if the command were missing.
    if (config.cwd !== undefined && !(await isDirectory(config.cwd)))
      throw new Error(`its cwd ${config.cwd} is not a directory here: set mcp.servers.${this.name}.cwd to one that exists`);
    const inner = { file: config.command ?? "", args: config.args ?? [], env: { ...config.env } };
    let command = { ...inner, env: { ...sdk.getDefaultEnvironment(), ...config.env } };
    if (this.confine) {
      const { sandbox, workspace } = this.confine;
      this.sandboxed = await sandbox.prepare({ workspace, cwd: config.cwd ?? workspace }, inner);
      if (this.sandboxed.confined) command = this.sandboxed.command;
    }
    const transport = new sdk.StdioClientTransport({
      command: command.file,
      args: command.args,
      env: command.env,
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
    this.stdio = transport;
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    return transport;
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
        throw this.translate(err);
      }
    }
  }

  private translate(err: unknown): unknown {
    // A request runs only on a started server, so the SDK is loaded by now.
    const sdk = this.sdk;
    if (sdk === undefined) return err;
    const { McpError, ErrorCode } = sdk;
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return new ArborError(
        "mcp_timeout",
        `MCP server "${this.name}" did not answer within ${this.config.timeoutMs} ms (timeoutMs in its config).`,
        { server: this.name },
      );
    }
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      return this.unavailable("closed the connection", err);
    }
    // Any other protocol error (unknown tool, bad arguments, a result that fails its schema) is
    // the call's failure, reported with the server's name so the model knows where it came from.
    if (err instanceof McpError) {
      return new ArborError("tool_failed", `MCP server "${this.name}" refused the request: ${err.message}`, {
        server: this.name,
        mcpCode: err.code,
      });
    }
    return err;
  }

  private unavailable(what: string, err: unknown): ArborError {
    const reason = err instanceof Error ? err.message : String(err);
    return new ArborError("mcp_unavailable", `${this.describe(what)} (${reason}). It is started again on the next call.`, {
      server: this.name,
    });
  }

  private describe(what: string): string {
    // The lines that say what went wrong, not a stack trace's frames.
    const lines = this.stderr
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("at ") && !/^[{}^]+$/.test(line));
    const errors = lines.filter((line) => /error/i.test(line));
    const tail = (errors.length > 0 ? errors : lines).slice(-3).join(" | ");
    const where = this.config.url ?? [this.config.command, ...(this.config.args ?? [])].join(" ");
    return `MCP server "${this.name}" (${where}) ${what}${tail ? `; its stderr: ${tail}` : ""}`;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
