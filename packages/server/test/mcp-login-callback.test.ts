import { ConfigSchema } from "@arbor/core";
import { MemoryMcpCredentials } from "@arbor/core/tools";
import { text, toolCall } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type OAuthTestServer, startOAuthServer } from "../../core/test/helpers/oauth-server.js";
import { startServer, type TestServer } from "./helpers/server.js";

/**
 * `arbor serve`'s callback for an MCP login a run asks for, against a real authorization server on
 * 127.0.0.1 (core's helpers/oauth-server.ts): the login is listed by GET /api/asks, a browser
 * following its URL lands on GET /api/mcp/oauth/callback, and the run goes on with the server's tool.
 */
let oauth: OAuthTestServer;
beforeEach(async () => {
  oauth = await startOAuthServer();
});
afterEach(async () => {
  await oauth.close();
});

async function serve(): Promise<TestServer> {
  const where = { base: "" };
  const server = await startServer({
    script: [[toolCall("mcp__remote__whoami", {}, { id: "w1" })], [text("done")]],
    runtime: {
      config: ConfigSchema.parse({ mcp: { servers: { remote: { url: oauth.mcpUrl, timeoutMs: 10_000 } } } }),
      mcpCredentials: new MemoryMcpCredentials(),
      mcpLoginRedirect: () => (where.base ? `${where.base}/api/mcp/oauth/callback` : undefined),
      askPollMs: 20,
    },
  });
  where.base = server.url;
  return server;
}

interface LoginAsk {
  id: string;
  kind: "mcp_login";
  session_id: string;
  mcp_login: { server: string; url: string; message: string; call_id?: string };
}

async function loginAsk(api: TestServer["api"]): Promise<LoginAsk> {
  let found: LoginAsk | undefined;
  await vi.waitFor(
    async () => {
      const { asks } = (await (await api("/api/asks")).json()) as { asks: Array<{ kind: string }> };
      found = asks.find((a): a is LoginAsk => a.kind === "mcp_login");
      expect(found).toBeDefined();
    },
    { timeout: 20_000, interval: 20 },
  );
  return found as LoginAsk;
}

describe("GET /api/mcp/oauth/callback", () => {
  it("a browser following the mcp_login ask's URL finishes the login there, and the run uses the server's tool", async () => {
    const { api } = await serve();
    const chat = api("/api/chat", { json: { message: "who am I?", stream: false } });
    const ask = await loginAsk(api);
    expect(ask.mcp_login).toMatchObject({ server: "remote", message: expect.stringContaining("needs you to log in") });
    // The browser: no token, follows the authorization server's redirect to the callback.
    const landed = await fetch(ask.mcp_login.url);
    expect(landed.url).toMatch(/\/api\/mcp\/oauth\/callback\?/);
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain("Logged in to remote");
    expect(await (await chat).json()).toMatchObject({ type: "done" });
    expect(oauth.calls).toBe(1);
    expect(((await (await api("/api/asks")).json()) as { asks: unknown[] }).asks).toEqual([]);
    // The same answer again (a reload) finds no login waiting: a page saying so, nothing changed.
    const again = await fetch(landed.url);
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/No login is waiting for this answer/);
  });

  it("a code the authorization server refuses leaves the login open: opening the link again finishes it", async () => {
    const { api } = await serve();
    const chat = api("/api/chat", { json: { message: "who am I?", stream: false } });
    const ask = await loginAsk(api);
    const answered = await fetch(ask.mcp_login.url, { redirect: "manual" });
    const callback = new URL(answered.headers.get("location") ?? "");
    callback.searchParams.set("code", "not-a-code-it-issued");
    const refused = await fetch(callback);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/refused the code .*open the login link again/);
    const landed = await fetch(ask.mcp_login.url);
    expect(landed.status).toBe(200);
    expect(await (await chat).json()).toMatchObject({ type: "done" });
    expect(oauth.calls).toBe(1);
  });

  it("a login declined through POST /api/asks ends the wait; the run goes on without the server", async () => {
    const { api } = await serve();
    const chat = api("/api/chat", { json: { message: "who am I?", stream: false } });
    const ask = await loginAsk(api);
    const denied = await api(`/api/asks/${ask.id}`, { json: { allow: true } });
    expect(denied.status).toBe(400);
    const declined = await api(`/api/asks/${ask.id}`, { json: { allow: false, message: "not now" } });
    expect(await declined.json()).toMatchObject({ id: ask.id, kind: "mcp_login", session_id: ask.session_id });
    expect(await (await chat).json()).toMatchObject({ type: "done" });
    expect(oauth.calls).toBe(0);
  });
});
