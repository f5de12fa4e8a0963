import { chmod, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OAuthTestServer, startOAuthServer } from "../../core/test/helpers/oauth-server.js";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";

/**
 * `arbor mcp login` end to end against a real authorization server on 127.0.0.1 (the SDK's OAuth
 * router, see core's helpers/oauth-server.ts): the browser it opens ($BROWSER, here a script that
 * follows the login link as a signed-in browser would) lands on the loopback listener, the token is
 * kept in ARBOR_HOME, a run then uses the server's tool, and `arbor mcp logout` forgets it.
 */

const e2e = setupCliE2e("arbor-mcp-login-e2e-");
let server: OAuthTestServer;
let browser: string;

beforeAll(async () => {
  server = await startOAuthServer();
  await writeFile(
    join(e2e.workspace, "arbor.json"),
    JSON.stringify({ mcp: { servers: { remote: { url: server.mcpUrl, timeoutMs: 20_000 } } } }),
  );
  browser = join(e2e.dir, "browser.sh");
  await writeFile(
    browser,
    `#!/bin/sh\nexec "${process.execPath}" -e 'fetch(process.argv[1]).then((r) => r.text()).then(console.log)' "$1"\n`,
  );
  await chmod(browser, 0o755);
});
afterAll(async () => {
  await server?.close();
});

describe("arbor mcp login", () => {
  it("logs in through the browser and the loopback listener; a run then calls the server's tool; logout forgets it", async () => {
    // Never logged in: a run's listing says how to log in, and nothing was asked of the authorization server.
    const before = await e2e.cli(["mcp", "list", "--cwd", e2e.workspace]);
    expect(before.stdout).toMatch(/needs you to log in .*arbor mcp login remote/);

    const login = await e2e.cli(["mcp", "login", "remote", "--cwd", e2e.workspace, "--json"], { env: { BROWSER: browser } });
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({ server: "remote", loggedIn: true, tools: 1 });
    expect(login.stderr).toMatch(
      /Log in to remote in your browser: http:\/\/127\.0\.0\.1:\d+\/authorize\?.*code_challenge_method=S256/,
    );
    expect(server.provider.authorizations).toBe(1);
    expect(await readdir(join(e2e.home, "mcp-auth"))).toEqual([expect.stringMatching(/^remote-[0-9a-f]{16}\.json$/)]);

    const fake = await e2e.startFake({
      script: [[toolCall("mcp__remote__whoami", {}, { id: "w1" })], [text("You are a registered client.")]],
    });
    const run = await e2e.cli(e2e.runArgs(fake.baseURL, "Who am I to the remote server?"));
    expect(run.code, run.stderr).toBe(0);
    const end = runEvents(run).find((e) => e.type === "tool_end" && e.call_id === "w1");
    expect(end).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });

    // A login revoked at the authorization server: the server is reported as wanting a new login.
    server.provider.revokeAll();
    const revoked = await e2e.cli(["mcp", "list", "--cwd", e2e.workspace]);
    expect(revoked.stdout).toMatch(/needs you to log in .*arbor mcp login remote/);

    const logout = await e2e.cli(["mcp", "logout", "remote", "--cwd", e2e.workspace, "--json"]);
    expect(JSON.parse(logout.stdout)).toEqual({ server: "remote", removed: true });
    expect(await readdir(join(e2e.home, "mcp-auth"))).toEqual([]);
  }, 240_000);

  it("refuses a server that is not configured as bad input", async () => {
    const missing = await e2e.cli(["mcp", "login", "nowhere", "--cwd", e2e.workspace]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No MCP server "nowhere" is configured in arbor.json \(configured: remote\)/);
  });
});
