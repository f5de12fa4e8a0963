import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema, createRuntime, openStore, type RunEvent } from "@arbor/core";
import { MemoryMcpCredentials } from "@arbor/core/tools";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OAuthTestServer, startOAuthServer } from "../../core/test/helpers/oauth-server.js";
import { terminalMcpLogin } from "../src/mcp/terminal-login.js";

/**
 * A login an MCP server wants during `arbor run` / `arbor chat`, answered at the terminal: the link
 * is said, the browser ($BROWSER, here a script that follows the link as a signed-in browser would)
 * comes back to the loopback listener, the runtime finishes the login and the run uses the tool.
 */
let oauth: OAuthTestServer;
let dir: string;
beforeEach(async () => {
  oauth = await startOAuthServer();
  dir = mkdtempSync(join(tmpdir(), "arbor-terminal-login-"));
});
afterEach(async () => {
  await oauth.close();
  rmSync(dir, { recursive: true, force: true });
});

function browserScript(): string {
  const file = join(dir, "browser.sh");
  writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" -e 'fetch(process.argv[1]).then((r) => r.text())' "$1"\n`);
  chmodSync(file, 0o755);
  return file;
}

describe("an MCP login at the terminal", () => {
  it("says the link, opens the browser, takes its answer on the loopback listener, and the run uses the tool", async () => {
    const lines: string[] = [];
    const login = terminalMcpLogin((line) => lines.push(line), { BROWSER: browserScript() });
    mkdirSync(join(dir, "work"));
    const store = await openStore(join(dir, "store"));
    const runtime = createRuntime({
      store,
      cwd: join(dir, "work"),
      arborHome: join(dir, "home"),
      env: {},
      model: scriptedModel([[toolCall("mcp__remote__whoami", {}, { id: "w1" })], [text("done")]]),
      config: ConfigSchema.parse({ mcp: { servers: { remote: { url: oauth.mcpUrl, timeoutMs: 10_000 } } } }),
      mcpCredentials: new MemoryMcpCredentials(),
      mcpLoginRedirect: login.redirect,
      onMcpLogin: login.handler,
      askPollMs: 20,
    });
    login.bind(runtime);
    try {
      const handle = runtime.runs.run({ prompt: "who am I?" });
      const events: RunEvent[] = [];
      for await (const event of handle) events.push(event);
      expect((await handle.result).status).toBe("done");
      const end = events.find((e) => e.type === "tool_end" && e.call_id === "w1");
      expect(end).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });
      expect(lines[0]).toMatch(
        /^MCP server remote needs you to log in; open this link in your browser: http:\/\/127\.0\.0\.1:\d+\/authorize\?.*redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fcallback/,
      );
      expect(lines[1]).toBe("Logged in to remote.");
      expect(await runtime.asks.listPending()).toEqual([]);
    } finally {
      await runtime.close();
      await store.close();
    }
  });
});
