import { readFile } from "node:fs/promises";
import type { AddClientAuthentication, OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpServerConfig } from "../config/schema.js";
import { ArborError } from "../errors.js";

type OAuthConfig = NonNullable<McpServerConfig["oauth"]>;

/** Whether a server's OAuth is the client credentials grant: Arbor itself is the client, no person logs in. */
export function isMachineAuth(config: McpServerConfig): boolean {
  return config.oauth?.grant === "client_credentials";
}

/**
 * The SDK's OAuthClientProvider for the client credentials grant (SEP-1046): Arbor authenticates as
 * the configured client, with its secret (client_secret_basic) or a JWT it signs with its private key
 * (private_key_jwt), and the SDK's `auth()` asks the token endpoint for a token whenever the server
 * refuses the one it has. Tokens are kept in memory: getting a new one takes no person.
 */
class MachineAuthProvider implements OAuthClientProvider {
  private stored: OAuthClientInformationMixed;
  private current: OAuthTokens | undefined;

  constructor(
    clientId: string,
    clientSecret: string | undefined,
    private readonly scope: string | undefined,
    issuer: string | undefined,
    readonly addClientAuthentication: AddClientAuthentication | undefined,
  ) {
    // Without an issuer, the SDK binds the credentials to the first authorization server that accepts them.
    this.stored = {
      client_id: clientId,
      ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}),
      ...(issuer !== undefined ? { issuer } : {}),
    };
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Arbor",
      redirect_uris: [],
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: this.addClientAuthentication ? "private_key_jwt" : "client_secret_basic",
      ...(this.scope !== undefined ? { scope: this.scope } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.stored = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.current = tokens;
  }

  redirectToAuthorization(): void {
    throw new ArborError("mcp_login_failed", "The client credentials grant has no browser step.");
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new ArborError("mcp_login_failed", "The client credentials grant has no code verifier.");
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    const wanted = scope ?? this.scope;
    if (wanted) params.set("scope", wanted);
    return params;
  }
}

/**
 * The provider for a server configured with `oauth.grant: "client_credentials"`; undefined for any
 * other. The private key is read from `privateKeyFile` each time the server starts, so a rotated key
 * is taken up without a restart.
 */
export async function machineAuthProvider(server: string, config: McpServerConfig): Promise<OAuthClientProvider | undefined> {
  const oauth: OAuthConfig | undefined = config.oauth;
  if (oauth?.grant !== "client_credentials") return undefined;
  const { clientId, clientSecret, privateKeyFile, scope, issuer } = oauth;
  // The schema requires a client id and one of the secret and the key; a config built in code is checked here too.
  if (clientId === undefined || (clientSecret === undefined) === (privateKeyFile === undefined)) {
    throw new ArborError(
      "invalid_config",
      `MCP server "${server}": the client credentials grant needs oauth.clientId and one of oauth.clientSecret and oauth.privateKeyFile.`,
    );
  }
  let sign: AddClientAuthentication | undefined;
  if (privateKeyFile !== undefined) {
    const privateKey = await readFile(privateKeyFile, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new ArborError(
        "invalid_config",
        `MCP server "${server}": cannot read oauth.privateKeyFile ${privateKeyFile} (${err.code ?? err.message}); give the path of a PKCS#8 PEM private key.`,
      );
    });
    const { createPrivateKeyJwtAuth } = await import("@modelcontextprotocol/sdk/client/auth-extensions.js");
    sign = createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey,
      alg: oauth.signingAlgorithm ?? "RS256",
    });
  }
  return new MachineAuthProvider(clientId, privateKeyFile === undefined ? clientSecret : undefined, scope, issuer, sign);
}
