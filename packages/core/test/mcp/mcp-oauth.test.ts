import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isArborError } from "../../src/errors.js";
import { McpManager } from "../../src/mcp/manager.js";
import type { McpAuthorizer } from "../../src/mcp/oauth-provider.js";
import { FileMcpCredentials } from "../../src/store/file/mcp-credential-files.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";

/**
 * OAuth 2.1 against a real authorization server on 127.0.0.1 (the SDK's OAuth router over an
 * in-memory provider, see helpers/oauth-server.ts): login with PKCE and dynamic registration, the
 * tokens in 0600 files, refresh before and after expiry, revocation, the `iss` check and logout.
 */

/**
 * The browser of a user who is signed in already: it asks the authorization endpoint and reads the
 * redirect it answers with (the CLI's loopback listener is exercised in the CLI's own test).
 */
const browser: McpAuthorizer = {
  redirectUrl: "http://127.0.0.1:9/callback",
  async authorize(url) {
    const res = await fetch(url, { redirect: "manual" });
    const location = res.headers.get("location");
    if (!location) throw new Error(`the authorization endpoint answered ${res.status}: ${await res.text()}`);
    const q = new URL(location).searchParams;
    const get = (name: string) => q.get(name) ?? undefined;
    return Object.fromEntries(
      Object.entries({ code: get("code"), state: get("state"), iss: get("iss"), error: get("error") }).filter(([, v]) => v),
    );
  },
};

let server: OAuthTestServer;
let dir: string;

beforeEach(async () => {
  server = await startOAuthServer();
  dir = mkdtempSync(join(tmpdir(), "arbor-mcp-oauth-"));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The MCP client as `arbor mcp login` (with a browser) or a run (without one) builds it. */
function manager(options: { authorizer?: McpAuthorizer; now?: () => number } = {}): McpManager {
  return new McpManager({
    servers: { remote: { url: server.mcpUrl, timeoutMs: 10_000, enabled: true } },
    toolCacheTtl: 0,
    oauth: {
      credentials: new FileMcpCredentials(join(dir, "mcp-auth")),
      ...(options.authorizer ? { authorizer: options.authorizer } : {}),
      ...(options.now ? { now: options.now } : {}),
    },
  });
}

/** A manager for `use`, closed after it whatever happens. */
async function withManager<T>(use: (m: McpManager) => Promise<T>, options: Parameters<typeof manager>[0] = {}): Promise<T> {
  const m = manager(options);
  try {
    return await use(m);
  } finally {
    await m.close();
  }
}

async function whoami(m: McpManager, registry = new ToolRegistry()) {
  await m.sync(registry);
  return registry.invoke(
    "mcp__remote__whoami",
    {},
    {
      sessionId: "s",
      messageId: "m",
      callId: "c",
      agent: "build",
      cwd: dir,
      abort: new AbortController().signal,
      metadata: () => {},
      ask: async () => {},
    },
  );
}

async function login(): Promise<void> {
  await withManager(
    async (m) => {
      expect(await m.login("remote")).toMatchObject({ server: "remote", loggedIn: true, tools: 1 });
    },
    { authorizer: browser },
  );
}

describe("MCP OAuth against a local authorization server", () => {
  it("logs in with PKCE and registration, keeps the tokens in owner-only files, and a run uses them", async () => {
    await login();
    expect(server.provider.authorizations).toBe(1);
    const file = new FileMcpCredentials(join(dir, "mcp-auth")).path({ server: "remote", url: server.mcpUrl });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "mcp-auth")).mode & 0o777).toBe(0o700);
    await withManager(async (run) => {
      const outcome = await whoami(run);
      expect(outcome.isError, outcome.output).toBe(false);
      expect(outcome.output).toMatch(/^client /);
    });
    expect(server.provider.authorizations).toBe(1);
  });

  it("refreshes an access token it knows has run out before using it, and one the server refuses as expired", async () => {
    await login();
    server.provider.expireAccessTokens();
    // Two hours later by the client's clock: the saved expires_in says the token is dead.
    await withManager(
      async (later) => {
        expect((await whoami(later)).isError).toBe(false);
      },
      { now: () => Date.now() + 2 * 3600_000 },
    );
    expect(server.provider.refreshes).toBe(1);
    // The server expires it early; the client learns from the 401 and refreshes then.
    server.provider.expireAccessTokens();
    await withManager(async (now) => {
      expect((await whoami(now)).isError).toBe(false);
    });
    expect(server.provider.refreshes).toBe(2);
    expect(server.provider.authorizations).toBe(1);
  });

  it("turns a revoked login into mcp_login_required naming `arbor mcp login`, mid-run and at start, until logged in again", async () => {
    await login();
    const registry = new ToolRegistry();
    await withManager(async (run) => {
      expect((await whoami(run, registry)).isError).toBe(false);
      server.provider.revokeAll();
      const refused = await whoami(run, registry);
      expect(refused.isError).toBe(true);
      expect(refused.output).toMatch(/MCP server "remote" needs you to log in.*arbor mcp login remote/);
    });
    await withManager(async (next) => {
      const [status] = await next.status();
      expect(status?.state).toMatchObject({ status: "failed", error: expect.stringContaining("arbor mcp login remote") });
    });
    expect(server.provider.authorizations).toBe(1);
    await login();
    await withManager(async (after) => {
      expect((await whoami(after)).isError).toBe(false);
    });
  });

  it("asks a server never logged in to for a login without registering anything", async () => {
    await withManager(async (run) => {
      const [status] = await run.status();
      expect(status?.state).toMatchObject({ status: "failed", error: expect.stringContaining("never been logged in") });
    });
    expect(server.provider.authorizations).toBe(0);
  });

  it("refuses an authorization answer whose iss names another authorization server (a mix-up)", async () => {
    server.provider.iss = "https://elsewhere.example/";
    await withManager(
      async (m) => {
        const err = await m.login("remote").catch((e: unknown) => e);
        expect(isArborError(err) && err.code).toBe("mcp_login_failed");
        expect(String((err as Error).message)).toMatch(/issuer https:\/\/elsewhere\.example\/ is not the authorization server's/);
      },
      { authorizer: browser },
    );
  });

  it("forgets the login on logout", async () => {
    await login();
    await withManager(async (m) => {
      expect(await m.logout("remote")).toBe(true);
      expect(await m.logout("remote")).toBe(false);
      const [status] = await m.status();
      expect(status?.state.status).toBe("failed");
    });
  });
});
