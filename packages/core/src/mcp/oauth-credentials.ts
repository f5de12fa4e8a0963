import { z } from "zod";

/**
 * What Arbor keeps for one OAuth-protected MCP server: the tokens, the client registration the
 * authorization server gave (or the pre-registered one), the PKCE verifier of a login under way and
 * the discovery result. The SDK's own types are kept as loose records: the SDK validates what it
 * reads back, and a stored value must survive an SDK that adds fields.
 */
export const McpCredentialsSchema = z.object({
  /** OAuthTokens as the token endpoint answered, with the `issuer` the SDK stamps on them. */
  tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
  /** Epoch ms the tokens were saved: with `expires_in`, when the access token runs out. */
  savedAt: z.number().optional(),
  /** OAuthClientInformation(Full): the client id (and secret) this server's authorization server knows us by. */
  client: z.looseObject({ client_id: z.string() }).optional(),
  /** The loopback redirect URI the client was registered with: a later login listens there again. */
  redirectUrl: z.string().optional(),
  codeVerifier: z.string().optional(),
  /**
   * The PKCE verifiers of logins a run asked the person for (`mcp_login` asks), by the `state` their
   * URL carries: the callback, in whichever process, finishes the one its answer names.
   */
  pendingLogins: z.record(z.string(), z.string()).optional(),
  /** OAuthDiscoveryState: the protected-resource and authorization-server metadata last discovered. */
  discovery: z.looseObject({ authorizationServerUrl: z.string() }).optional(),
});
export type McpCredentials = z.infer<typeof McpCredentialsSchema>;

/** Whose credentials for which server: a server's URL is part of it, so re-pointing a name does not reuse tokens. */
export interface McpCredentialKey {
  server: string;
  url: string;
  /** The principal the tokens act for, where the host knows one (the local user otherwise). */
  principal?: string;
}

/** Where MCP OAuth credentials live: files in Arbor's home (FileMcpCredentials) or a host's own store. */
export interface McpCredentialStore {
  load(key: McpCredentialKey): Promise<McpCredentials | undefined>;
  save(key: McpCredentialKey, credentials: McpCredentials): Promise<void>;
  /** Forgets the server's credentials; false when there were none. */
  remove(key: McpCredentialKey): Promise<boolean>;
}

/** Credentials held in memory: for a host that must not write to disk, and for tests. */
export class MemoryMcpCredentials implements McpCredentialStore {
  private readonly records = new Map<string, McpCredentials>();

  async load(key: McpCredentialKey): Promise<McpCredentials | undefined> {
    const record = this.records.get(keyText(key));
    return record ? structuredClone(record) : undefined;
  }

  async save(key: McpCredentialKey, credentials: McpCredentials): Promise<void> {
    this.records.set(keyText(key), structuredClone(credentials));
  }

  async remove(key: McpCredentialKey): Promise<boolean> {
    return this.records.delete(keyText(key));
  }
}

/** One line naming a key, stable across processes (the file store hashes it into a file name). */
export function keyText(key: McpCredentialKey): string {
  return JSON.stringify([key.server, key.url, key.principal ?? ""]);
}
