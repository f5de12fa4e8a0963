import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidGrantError, InvalidRequestError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * The little of express (a dependency of the SDK's OAuth router, without type declarations here)
 * this server uses; loaded by a name TypeScript does not resolve.
 */
interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse): void;
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
}
interface Express {
  (): ExpressApp;
  json(): unknown;
}
const EXPRESS = "express";

interface Grant {
  clientId: string;
  scopes: string[];
}

/**
 * The authorization server's side of the test: the SDK's OAuth router (metadata, /authorize with
 * redirect-URI and PKCE checks, /token, /register, /revoke) over an in-memory provider with
 * refresh-token rotation and revocation. The user approves at once, as a browser already signed in would.
 */
export class TestAuthProvider implements OAuthServerProvider {
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  private readonly access = new Map<string, Grant & { expiresAt: number }>();
  private readonly refresh = new Map<string, Grant>();
  /** What the authorization server calls itself in `iss` (RFC 9207); a test sets another to play a mix-up. */
  iss = "";
  accessTtlSeconds = 3600;
  authorizations = 0;
  refreshes = 0;

  readonly clientsStore = {
    getClient: async (id: string) => this.clients.get(id),
    registerClient: async (client: OAuthClientInformationFull) => {
      this.clients.set(client.client_id, client);
      return client;
    },
  };

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: { redirect(url: string): void },
  ): Promise<void> {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidRequestError("Unregistered redirect_uri");
    this.authorizations++;
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    target.searchParams.set("iss", this.iss);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) throw new InvalidGrantError("unknown authorization code");
    return entry.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.client.client_id !== client.client_id) throw new InvalidGrantError("unknown authorization code");
    this.codes.delete(code);
    return this.issue({ clientId: client.client_id, scopes: entry.params.scopes ?? [] });
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, token: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(token);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("refresh token revoked or unknown");
    this.refresh.delete(token);
    this.refreshes++;
    return this.issue(grant);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (!grant || grant.expiresAt <= Date.now()) throw new InvalidTokenError("token expired or revoked");
    return { token, clientId: grant.clientId, scopes: grant.scopes, expiresAt: Math.floor(grant.expiresAt / 1000) };
  }

  async revokeToken(_client: OAuthClientInformationFull, request: { token: string }): Promise<void> {
    this.access.delete(request.token);
    this.refresh.delete(request.token);
  }

  /** Every access token runs out now (the refresh tokens still work). */
  expireAccessTokens(): void {
    for (const grant of this.access.values()) grant.expiresAt = 0;
  }

  /** Every token, access and refresh, is revoked: only a new login helps. */
  revokeAll(): void {
    this.access.clear();
    this.refresh.clear();
  }

  private issue(grant: Grant): OAuthTokens {
    const access = randomUUID();
    const refresh = randomUUID();
    this.access.set(access, { ...grant, expiresAt: Date.now() + this.accessTtlSeconds * 1000 });
    this.refresh.set(refresh, grant);
    return {
      access_token: access,
      token_type: "bearer",
      expires_in: this.accessTtlSeconds,
      refresh_token: refresh,
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(" ") } : {}),
    };
  }
}

export interface OAuthTestServer {
  /** The MCP endpoint, behind a bearer token. */
  mcpUrl: string;
  issuer: string;
  provider: TestAuthProvider;
  /** Tool calls the MCP server answered. */
  calls: number;
  close(): Promise<void>;
}

/**
 * A remote MCP server behind OAuth on 127.0.0.1: protected-resource metadata, the authorization
 * server and `/mcp` (one tool, `whoami`) on one port, as a small hosted server would be.
 */
export async function startOAuthServer(): Promise<OAuthTestServer> {
  const provider = new TestAuthProvider();
  const express = ((await import(EXPRESS)) as { default: Express }).default;
  let handler: ExpressApp | undefined;
  const http: Server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = `${base}/mcp`;
  const issuer = new URL(base);
  provider.iss = issuer.href;
  const state = { calls: 0 };
  const app = express();
  app.use(mcpAuthRouter({ provider, issuerUrl: issuer, resourceServerUrl: new URL(mcpUrl), scopesSupported: ["tools"] }));
  const auth = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
  });
  app.post("/mcp", express.json(), auth, async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const server = new McpServer({ name: "oauth-test", version: "1.0.0" });
    server.registerTool("whoami", { description: "Says which client the token belongs to." }, async (extra) => {
      state.calls++;
      return { content: [{ type: "text", text: `client ${extra.authInfo?.clientId}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  handler = app;
  return {
    mcpUrl,
    issuer: issuer.href,
    provider,
    get calls() {
      return state.calls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
