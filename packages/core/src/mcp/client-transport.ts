import { stat } from "node:fs/promises";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpServerConfig } from "../config/schema.js";
import type { Sandbox, SandboxedCall } from "../sandbox/sandbox.js";
import type { Sdk } from "./client-sdk.js";
import { machineAuthProvider } from "./machine-auth.js";
import type { McpOAuthProvider } from "./oauth-provider.js";

/** What opening a server's transport made: the connection keeps the pieces it acts on later. */
export type OpenedTransport =
  | { kind: "http"; transport: StreamableHTTPClientTransport }
  | { kind: "stdio"; transport: StdioClientTransport; sandboxed?: SandboxedCall };

export interface TransportOptions {
  /** The server's OAuth login, renewed before use when its token has expired. */
  login?: McpOAuthProvider;
  /** Confines a stdio server to the workspace; without it the server runs with Arbor's authority. */
  confine?: { sandbox: Sandbox; workspace: string };
  /** Hears what a stdio server writes to stderr. */
  onStderr: (chunk: string) => void;
}

/** The transport to one configured server: Streamable HTTP for a `url` server, a child process for a `command` one. */
export async function openTransport(
  sdk: Sdk,
  name: string,
  config: McpServerConfig,
  options: TransportOptions,
): Promise<OpenedTransport> {
  if (config.url !== undefined)
    return { kind: "http", transport: await openHttp(sdk, name, { ...config, url: config.url }, options) };
  return openStdio(sdk, name, config, options);
}

async function openHttp(
  sdk: Sdk,
  name: string,
  config: McpServerConfig & { url: string },
  { login }: TransportOptions,
): Promise<StreamableHTTPClientTransport> {
  // fetch refuses a header with a character above U+00FF ("Cannot convert argument to a
  // ByteString"); a pasted placeholder such as "Bearer …" is the usual one: name it.
  for (const [header, value] of Object.entries(config.headers ?? {})) {
    const at = [...value].findIndex((c) => (c.codePointAt(0) ?? 0) > 0xff);
    if (at >= 0)
      throw new Error(
        `header ${header} holds ${JSON.stringify([...value][at])} at character ${at + 1}, which HTTP headers cannot carry: put the real value in mcp.servers.${name}.headers.${header}`,
      );
  }
  const url = new URL(config.url);
  if (login && (await login.expired())) {
    // Renewed before use rather than after a refusal; a refresh token that no longer works leads to a login.
    await sdk.auth(login, { serverUrl: url });
    const code = login.takeCode();
    if (code !== undefined) await sdk.auth(login, { serverUrl: url, authorizationCode: code });
  }
  // The client credentials grant: tokens come from the token endpoint whenever needed, no login.
  const machine = await machineAuthProvider(name, config);
  return new sdk.StreamableHTTPClientTransport(url, {
    ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
    ...(machine ? { authProvider: machine } : login ? { authProvider: login } : {}),
  });
}

async function openStdio(sdk: Sdk, name: string, config: McpServerConfig, options: TransportOptions): Promise<OpenedTransport> {
  // A missing cwd makes spawn fail with ENOENT, which reads as if the command were missing.
  if (config.cwd !== undefined && !(await isDirectory(config.cwd)))
    throw new Error(`its cwd ${config.cwd} is not a directory here: set mcp.servers.${name}.cwd to one that exists`);
  const inner = { file: config.command ?? "", args: config.args ?? [], env: { ...config.env } };
  let command = { ...inner, env: { ...sdk.getDefaultEnvironment(), ...config.env } };
  let sandboxed: SandboxedCall | undefined;
  if (options.confine) {
    const { sandbox, workspace } = options.confine;
    sandboxed = await sandbox.prepare({ workspace, cwd: config.cwd ?? workspace }, inner);
    if (sandboxed.confined) command = sandboxed.command;
  }
  let transport: StdioClientTransport;
  try {
    transport = new sdk.StdioClientTransport({
      command: command.file,
      args: command.args,
      env: command.env,
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
  } catch (err) {
    // The connection releases only the sandbox lease it was handed.
    await sandboxed?.close();
    throw err;
  }
  transport.stderr?.on("data", (chunk: Buffer) => options.onStderr(chunk.toString("utf8")));
  return { kind: "stdio", transport, ...(sandboxed ? { sandboxed } : {}) };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
