import { createHash, randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpServerConfig } from "../config/schema.js";
import { ArborError } from "../errors.js";
import type { McpLoginAnswer } from "./login-asks.js";
import type { McpCredentialKey, McpCredentialStore, McpCredentials } from "./oauth-credentials.js";

/** The query the authorization server sends the browser back with (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export interface McpAuthorizationResponse {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

/**
 * Takes the user through an authorization server's login: sends them to the URL (a browser, or a
 * printed link) and waits for the redirect back to `redirectUrl`. `arbor mcp login`'s is a loopback
 * listener on 127.0.0.1. A run has none: it asks for the login (an `mcp_login` ask, see
 * `loginRedirect`), or without that fails with `mcp_login_required`.
 */
export interface McpAuthorizer {
  readonly redirectUrl: string;
  authorize(url: URL, signal?: AbortSignal): Promise<McpAuthorizationResponse>;
}

/** How MCP servers behind OAuth get their tokens: where they are kept, and who logs in. */
export interface McpOAuthOptions {
  credentials: McpCredentialStore;
  authorizer?: McpAuthorizer;
  principal?: string;
  now?: () => number;
  /**
   * Where the browser comes back to when a run asks for a login (an `mcp_login` ask) instead of
   * failing with `mcp_login_required`: `arbor serve`'s callback route, a terminal's loopback
   * listener. Read when a login may start, so a server may know its address only once it listens,
   * and a terminal starts its listener only when a login is needed.
   */
  loginRedirect?: () => string | undefined | Promise<string | undefined>;
}

/** Puts a login to the person (the authorization URL to open) and resolves once it is done, declined or given up. */
export type McpLoginAsk = (url: URL) => Promise<McpLoginAnswer>;

/** A refresh is started this long before the access token runs out, so a call never carries a dying one. */
const EXPIRY_MARGIN_MS = 30_000;
/** How many asked logins' verifiers are kept: older ones are given up (their asks expire or were answered). */
const PENDING_LOGINS = 8;
/** Redirect URI of a client registered where no login can happen (a run): replaced at the next login. */
const NO_REDIRECT = "http://127.0.0.1/callback";

export function loginRequired(server: string, why: string): ArborError {
  return new ArborError(
    "mcp_login_required",
    `MCP server "${server}" needs you to log in (${why}): run \`arbor mcp login ${server}\`, then try again.`,
    { server },
  );
}

/**
 * The SDK's OAuthClientProvider for one server, kept in an McpCredentialStore: discovery, dynamic
 * registration or a Client ID Metadata Document, PKCE and refresh are the SDK's `auth()`; this
 * class keeps what it saves, runs the browser step through the authorizer and checks what comes
 * back (`state`, `iss`). A code obtained is held until the connection exchanges it (`takeCode`).
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private record: McpCredentials | undefined;
  private loaded = false;
  private expectedState: string | undefined;
  private code: string | undefined;
  private readonly now: () => number;
  /** How many logins asked of the person were finished here: a request refused meanwhile is sent again. */
  logins = 0;
  /** The callback is exchanging a code: the redirect URI is the one the login was asked with. */
  private finishing = false;
  /** The `state` of the asked login the callback is finishing: its verifier is the one sent. */
  private finishingState: string | undefined;
  /** Verifiers of authorization flows to be asked of the person, paired with their URL by its code challenge. */
  private verifiers: string[] = [];
  /** The redirect URI of a login asked of the person, read when an authorization flow begins (see `prepareLogin`). */
  private preparedRedirect: string | undefined;
  /** The login being asked of the person: a second refused request waits on it rather than asking again. */
  private asking: Promise<McpLoginAnswer> | undefined;
  /** Who asks the person for a login now (a tool call in flight), set by the connection; none: `mcp_login_required`. */
  asker: () => McpLoginAsk | undefined = () => undefined;

  constructor(
    readonly server: string,
    private readonly config: McpServerConfig & { url: string },
    private readonly options: McpOAuthOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get key(): McpCredentialKey {
    return {
      server: this.server,
      url: this.config.url,
      ...(this.options.principal !== undefined ? { principal: this.options.principal } : {}),
    };
  }

  get redirectUrl(): string {
    return this.options.authorizer?.redirectUrl ?? this.askedRedirect() ?? this.record?.redirectUrl ?? NO_REDIRECT;
  }

  /** The redirect URI of a login asked of the person, when one can be asked (or is being finished) here. */
  private askedRedirect(): string | undefined {
    return this.finishing || this.asker() ? this.preparedRedirect : undefined;
  }

  /** Reads where a login asked of the person would come back to (a listener may start for it). */
  private async prepareLogin(): Promise<void> {
    if (this.options.authorizer || !this.options.loginRedirect) return;
    if (this.finishing || this.asker()) this.preparedRedirect = await this.options.loginRedirect();
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.oauth?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const oauth = this.config.oauth;
    return {
      client_name: "Arbor",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: oauth?.clientSecret !== undefined ? "client_secret_basic" : "none",
      ...(oauth?.scope !== undefined ? { scope: oauth.scope } : {}),
    };
  }

  /** Reads the stored credentials once; the connection calls it before the SDK asks for any. */
  async load(): Promise<McpCredentials> {
    if (!this.loaded) {
      this.record = await this.options.credentials.load(this.key);
      this.loaded = true;
    }
    return this.record ?? {};
  }

  /** The access token is past (or within a moment of) its `expires_in`, and a refresh token could renew it. */
  async expired(): Promise<boolean> {
    const { tokens, savedAt } = await this.load();
    const expiresIn = typeof tokens?.expires_in === "number" ? tokens.expires_in : undefined;
    if (!tokens?.refresh_token || expiresIn === undefined || savedAt === undefined) return false;
    return this.now() >= savedAt + expiresIn * 1000 - EXPIRY_MARGIN_MS;
  }

  async state(): Promise<string> {
    this.expectedState = randomBytes(16).toString("base64url");
    return this.expectedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const oauth = this.config.oauth;
    if (oauth?.clientId !== undefined)
      return { client_id: oauth.clientId, ...(oauth.clientSecret !== undefined ? { client_secret: oauth.clientSecret } : {}) };
    // The SDK asks for the client first in every authorization flow: the redirect URI is known from here on.
    await this.prepareLogin();
    const { client, tokens } = await this.load();
    const asked = !this.options.authorizer && this.askedRedirect() !== undefined;
    // A refresh token still to try goes with the client it was issued to; a new registration waits until it fails.
    if (asked && tokens?.refresh_token && !this.finishing) return client as OAuthClientInformationMixed | undefined;
    if (!this.options.authorizer && !asked) {
      // No login can happen here: registering a client now would only leave one nobody uses.
      if (!client && this.clientMetadataUrl === undefined) throw loginRequired(this.server, "it has never been logged in to");
      return client as OAuthClientInformationMixed | undefined;
    }
    // A client registered for another redirect URI would be refused at the token endpoint: register again.
    const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (Array.isArray(uris) && !uris.includes(this.redirectUrl)) return undefined;
    return client as OAuthClientInformationMixed | undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({
      client: client as McpCredentials["client"],
      ...(this.options.authorizer ? { redirectUrl: this.redirectUrl } : {}),
    });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.load()).tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens: tokens as McpCredentials["tokens"], savedAt: this.now() });
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (this.options.authorizer || !this.asker() || this.preparedRedirect === undefined) {
      await this.update({ codeVerifier });
      return;
    }
    // Flows may interleave between `state()` and here: the URL's code challenge says which verifier is whose.
    this.verifiers = [...this.verifiers.slice(-(PENDING_LOGINS - 1)), codeVerifier];
  }

  /**
   * Keeps the verifier of the login about to be asked under its URL's `state`, beside any other
   * process's asked logins (read anew so as not to write over them).
   */
  private async keepAskedVerifier(url: URL): Promise<void> {
    const state = url.searchParams.get("state");
    const challenge = url.searchParams.get("code_challenge");
    const verifier = this.verifiers.find((v) => createHash("sha256").update(v).digest("base64url") === challenge);
    if (!state || verifier === undefined) throw loginRequired(this.server, "its login could not be prepared");
    this.verifiers = this.verifiers.filter((v) => v !== verifier);
    this.loaded = false;
    const kept = Object.entries((await this.load()).pendingLogins ?? {}).slice(-(PENDING_LOGINS - 1));
    await this.update({ pendingLogins: Object.fromEntries([...kept, [state, verifier]]) });
  }

  async codeVerifier(): Promise<string> {
    const { codeVerifier, pendingLogins } = await this.load();
    if (this.finishing) {
      const asked = this.finishingState === undefined ? undefined : pendingLogins?.[this.finishingState];
      if (asked === undefined)
        throw new ArborError(
          "mcp_login_failed",
          `Logging in to MCP server "${this.server}" failed: this login's PKCE verifier is no longer kept (a newer login replaced it, or it was logged out); the run asks again when it needs the server.`,
          { server: this.server },
        );
      return asked;
    }
    if (codeVerifier === undefined) throw loginRequired(this.server, "no login is under way");
    return codeVerifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.update({ discovery: state as unknown as McpCredentials["discovery"] });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discovery as OAuthDiscoveryState | undefined;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    const record = { ...(await this.load()) };
    if (scope === "all" || scope === "tokens") delete record.tokens;
    if (scope === "all" || scope === "client") delete record.client;
    if (scope === "all" || scope === "verifier") delete record.codeVerifier;
    if (scope === "all") delete record.pendingLogins;
    if (scope === "all" || scope === "discovery") delete record.discovery;
    this.record = record;
    await this.options.credentials.save(this.key, record);
  }

  /**
   * The browser step. Without an authorizer (a run, a server) it is a typed error asking for
   * `arbor mcp login`; with one, the answer is checked and its code kept for `takeCode`.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    const authorizer = this.options.authorizer;
    const ask = authorizer ? undefined : this.asker();
    if (!authorizer && (!ask || this.preparedRedirect === undefined)) throw loginRequired(this.server, "it has no valid token");
    const metadata = await this.serverMetadata();
    // Ask for a refresh token where the authorization server offers one (offline_access, SEP-2207).
    const scopes = (url.searchParams.get("scope") ?? "").split(" ").filter(Boolean);
    if (metadata?.scopes_supported?.includes("offline_access") && scopes.length > 0 && !scopes.includes("offline_access"))
      url.searchParams.set("scope", [...scopes, "offline_access"].join(" "));
    if (!authorizer) {
      // A second flow here waits on the login being asked: its own link is never shown.
      if (!this.asking) await this.keepAskedVerifier(url);
      this.asking ??= (ask as McpLoginAsk)(url).finally(() => {
        this.asking = undefined;
      });
      const answer = await this.asking;
      if (answer.action !== "accept")
        throw new ArborError(
          "mcp_login_declined",
          `MCP server "${this.server}" was not logged in to (the login was ${answer.action === "decline" ? `declined${answer.reason ? `: ${answer.reason}` : ""}` : "given up"}); its tools cannot be used until it is: run \`arbor mcp login ${this.server}\`, or accept the login when it is asked again.`,
          { server: this.server },
        );
      // The callback kept the tokens, maybe in another process: read them anew, and send the request again.
      this.loaded = false;
      this.logins++;
      return;
    }
    this.code = this.checkedCode(await authorizer.authorize(url), metadata, true);
  }

  /**
   * Finishes a login asked of the person, in whichever process the browser came back to: the answer
   * is checked (`iss`, a code), then `exchange` trades the code for tokens with the verifier this
   * server's credentials keep (read anew: the run that asked may be another process).
   */
  async finishLogin(response: McpAuthorizationResponse, exchange: (code: string) => Promise<unknown>): Promise<void> {
    this.loaded = false;
    const code = this.checkedCode(response, await this.serverMetadata(), false);
    this.finishing = true;
    this.finishingState = response.state;
    try {
      await this.prepareLogin();
      await exchange(code);
    } catch (err) {
      if (err instanceof ArborError) throw err;
      // The ask stays open: its link, opened again, brings a new code for the same kept verifier.
      throw new ArborError(
        "mcp_login_failed",
        `Logging in to MCP server "${this.server}" failed: the authorization server refused the code (${err instanceof Error ? err.message : String(err)}); open the login link again.`,
        { server: this.server },
      );
    } finally {
      this.finishing = false;
      this.finishingState = undefined;
      this.loaded = false;
    }
    // Used once: the verifier goes with its login.
    const { pendingLogins = {} } = await this.load();
    const { [response.state ?? ""]: _, ...rest } = pendingLogins;
    await this.update({ pendingLogins: rest });
  }

  private async serverMetadata() {
    return (await this.load()).discovery?.authorizationServerMetadata as
      | { issuer?: string; scopes_supported?: string[]; authorization_response_iss_parameter_supported?: boolean }
      | undefined;
  }

  /** The answer's code, once its state (when this process sent it) and issuer are the expected ones. */
  private checkedCode(
    response: McpAuthorizationResponse,
    metadata: Awaited<ReturnType<McpOAuthProvider["serverMetadata"]>>,
    checkState: boolean,
  ): string {
    const fail = (why: string) =>
      new ArborError("mcp_login_failed", `Logging in to MCP server "${this.server}" failed: ${why}.`, { server: this.server });
    if (response.error !== undefined)
      throw fail(
        `the authorization server answered ${response.error}${response.errorDescription ? ` (${response.errorDescription})` : ""}`,
      );
    if (checkState && this.expectedState !== undefined && response.state !== this.expectedState)
      throw fail("the answer's state does not match the request's (a forged or stale redirect)");
    // RFC 9207: the answer names its issuer, so a code from another authorization server (a mix-up) is refused.
    const issuer = metadata?.issuer;
    if (
      response.iss !== undefined
        ? issuer !== undefined && response.iss !== issuer
        : metadata?.authorization_response_iss_parameter_supported === true
    )
      throw fail(`the answer's issuer ${response.iss ?? "(none)"} is not the authorization server's (${issuer})`);
    if (!response.code) throw fail("the answer carries no authorization code");
    return response.code;
  }

  /** The authorization code the last browser step brought back, once. */
  takeCode(): string | undefined {
    const code = this.code;
    this.code = undefined;
    return code;
  }

  /** Forgets this server's login: tokens, registration and all. */
  async forget(): Promise<boolean> {
    this.record = undefined;
    this.loaded = true;
    return this.options.credentials.remove(this.key);
  }

  private async update(patch: Partial<McpCredentials>): Promise<void> {
    const record = { ...(await this.load()), ...patch };
    this.record = record;
    await this.options.credentials.save(this.key, record);
  }
}
