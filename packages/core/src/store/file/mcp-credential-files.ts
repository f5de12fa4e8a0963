import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../errors.js";
import {
  keyText,
  type McpCredentialKey,
  type McpCredentialStore,
  type McpCredentials,
  McpCredentialsSchema,
} from "../../mcp/oauth-credentials.js";
import { ensurePrivateDir, readJsonRecord, writePrivateFile } from "./private-files.js";

/** The folder under `$ARBOR_HOME` where `arbor mcp login` keeps what it obtained. */
export const MCP_CREDENTIALS_DIR = "mcp-auth";

/**
 * MCP OAuth credentials as files: `<dir>/<server>-<hash of server, URL and principal>.json`, in a
 * folder only the owner may enter (0700), each file created readable by the owner alone (0600) and
 * replaced whole, so a crash mid-write never leaves half a refresh token.
 */
export class FileMcpCredentials implements McpCredentialStore {
  constructor(private readonly dir: string) {}

  async load(key: McpCredentialKey): Promise<McpCredentials | undefined> {
    const path = this.path(key);
    return readJsonRecord(
      path,
      McpCredentialsSchema,
      () =>
        new ArborError(
          "mcp_login_required",
          `The saved login for MCP server "${key.server}" (${path}) is damaged: log in again with \`arbor mcp login ${key.server}\`.`,
          { server: key.server },
        ),
    );
  }

  async save(key: McpCredentialKey, credentials: McpCredentials): Promise<void> {
    ensurePrivateDir(this.dir);
    writePrivateFile(this.path(key), JSON.stringify(credentials), false);
  }

  async remove(key: McpCredentialKey): Promise<boolean> {
    const path = this.path(key);
    try {
      rmSync(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  }

  /** The server name is kept readable; the hash keeps two URLs or principals of one name apart. */
  path(key: McpCredentialKey): string {
    const hash = createHash("sha256").update(keyText(key)).digest("hex").slice(0, 16);
    return join(this.dir, `${key.server}-${hash}.json`);
  }
}
