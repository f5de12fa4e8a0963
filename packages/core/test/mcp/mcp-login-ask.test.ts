import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { type McpCredentialStore, MemoryMcpCredentials } from "../../src/mcp/oauth-credentials.js";
import type { PendingAsk } from "../../src/runtime/asks-api.js";
import type { Runtime } from "../../src/runtime/types.js";
import { FileMcpCredentials } from "../../src/store/file/mcp-credential-files.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";
import { collect, harness } from "../loop/harness.js";

/**
 * A login an OAuth-protected MCP server wants during a run is a durable ask of kind `mcp_login`,
 * against a real authorization server on 127.0.0.1 (helpers/oauth-server.ts): the test is the
 * browser (it follows the ask's URL to the redirect) and the callback (it hands the answer to
 * `runtime.mcp.finishLogin`, as `arbor serve`'s route does).
 */
const CALLBACK = "http://127.0.0.1:9/api/mcp/oauth/callback";
const TOOL = "mcp__remote__whoami";

let server: OAuthTestServer;
beforeEach(async () => {
  server = await startOAuthServer();
});
afterEach(async () => {
  await server.close();
});

async function runtimeFor(
  model: ReturnType<typeof scriptedModel>,
  credentials: McpCredentialStore = new MemoryMcpCredentials(),
  store?: Store,
) {
  const config = resolveConfig([
    { source: "test", value: { mcp: { servers: { remote: { url: server.mcpUrl, timeoutMs: 10_000 } } } } },
  ]);
  return harness({
    model,
    config,
    mcpCredentials: credentials,
    mcpLoginRedirect: () => CALLBACK,
    askPollMs: 20,
    ...(store ? { store } : {}),
  });
}

async function loginAsk(runtime: Runtime, seen: string[] = []) {
  let found: Extract<PendingAsk, { kind: "mcp_login" }> | undefined;
  await vi.waitFor(
    async () => {
      found = (await runtime.asks.listPending()).find(
        (a): a is Extract<PendingAsk, { kind: "mcp_login" }> => a.kind === "mcp_login" && !seen.includes(a.id),
      );
      expect(found).toBeDefined();
    },
    { timeout: 20_000, interval: 20 },
  );
  return found as Extract<PendingAsk, { kind: "mcp_login" }>;
}

/** A signed-in browser: opens the login page and lands on the callback with the authorization server's answer. */
async function follow(runtime: Runtime, url: string) {
  const res = await fetch(url, { redirect: "manual" });
  const location = res.headers.get("location");
  expect(location, `the authorization endpoint answered ${res.status}`).toMatch(
    /^http:\/\/127\.0\.0\.1:9\/api\/mcp\/oauth\/callback\?/,
  );
  const q = new URL(location ?? "").searchParams;
  const get = (name: string) => q.get(name) ?? undefined;
  const response = Object.fromEntries(
    Object.entries({ code: get("code"), state: get("state"), iss: get("iss"), error: get("error") }).filter(([, v]) => v),
  );
  return runtime.mcp.finishLogin(response);
}

function toolEnd(events: Awaited<ReturnType<typeof collect>>["events"], callId: string) {
  const end = events.find((e) => e.type === "tool_end" && e.call_id === callId);
  return end?.type === "tool_end" ? end : undefined;
}

/**
 * Runs "who am I?" through its first login to its end, then revokes every token the authorization
 * server gave: the session's next call has to log in again.
 */
async function loggedInThenRevoked(model: ReturnType<typeof scriptedModel>) {
  const { runtime, store } = await runtimeFor(model);
  const first = runtime.runs.run({ prompt: "who am I?" });
  const firstDone = collect(first);
  const login = await loginAsk(runtime);
  await follow(runtime, login.mcpLogin.url);
  const { events } = await firstDone;
  server.provider.revokeAll();
  return { runtime, store, sessionId: first.sessionId, login, firstEvents: events };
}

describe("an MCP login during a run is an ask", () => {
  it("a server never logged in to raises an mcp_login ask with a PKCE URL; once the browser comes back the run uses its tool", async () => {
    const model = scriptedModel([[toolCall(TOOL, {}, { id: "w1" })], [text("You are a client.")]]);
    const { runtime, store } = await runtimeFor(model);
    const handle = runtime.runs.run({ prompt: "who am I?" });
    const running = collect(handle);
    const ask = await loginAsk(runtime);
    expect(ask.sessionId).toBe(handle.sessionId);
    expect(ask.mcpLogin).toMatchObject({
      server: "remote",
      message: expect.stringContaining('MCP server "remote" needs you to log in'),
    });
    const url = new URL(ask.mcpLogin.url);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("redirect_uri")).toBe(CALLBACK);
    expect(url.searchParams.get("state")).toBeTruthy();
    // The verifier stays with the server's credentials, never in the ask.
    expect(JSON.stringify(await store.getAsk(ask.id))).not.toMatch(/verifier/i);

    expect(await follow(runtime, ask.mcpLogin.url)).toEqual({
      server: "remote",
      sessionId: ask.sessionId,
      askId: ask.id,
      loggedIn: true,
    });
    const { events, result } = await running;
    expect(result.status).toBe("done");
    expect(toolEnd(events, "w1")).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });
    expect(
      events
        .filter((e) => e.type.startsWith("elicitation_"))
        .map((e) => `${e.type}:${(e as { mode?: string }).mode ?? (e as { action?: string }).action}`),
    ).toEqual(["elicitation_request:login", "elicitation_answered:accept"]);
    expect((await store.getAsk(ask.id))?.answer?.value).toEqual({ action: "accept" });
    expect(server.calls).toBe(1);
    // A second answer for the same login (a reload of the callback page) finds nothing waiting.
    await expect(follow(runtime, ask.mcpLogin.url)).rejects.toMatchObject({ code: "mcp_login_failed" });
  });

  it("a token revoked mid-session leads to an ask at the next call; declined, the call is a tool error and the run ends normally", async () => {
    const model = scriptedModel([
      [toolCall(TOOL, {}, { id: "w1" })],
      [text("first")],
      [toolCall(TOOL, {}, { id: "w2" })],
      [text("second")],
      [toolCall(TOOL, {}, { id: "w3" })],
      [text("third")],
    ]);
    // Refresh token and access token revoked: the refresh fails, and the call asks for a login instead of failing.
    const { runtime, store, sessionId, login, firstEvents } = await loggedInThenRevoked(model);
    expect(toolEnd(firstEvents, "w1")?.is_error).toBe(false);
    const second = collect(runtime.runs.run({ prompt: "again", sessionId }));
    const relogin = await loginAsk(runtime, [login.id]);
    expect(relogin.mcpLogin).toMatchObject({ server: "remote", callId: "w2" });
    await runtime.asks.answer(relogin.id, false, { message: "not now" });
    const { events, result } = await second;
    expect(result.status).toBe("done");
    expect(toolEnd(events, "w2")).toMatchObject({
      is_error: true,
      output: expect.stringMatching(/MCP server "remote" was not logged in to \(the login was declined: not now\)/),
    });
    expect((await store.getAsk(relogin.id))?.answer?.value).toEqual({ action: "decline", reason: "not now" });
    expect(server.provider.refreshes).toBe(0);

    // The next call asks again; logged in this time, it goes through.
    const third = collect(runtime.runs.run({ prompt: "and now", sessionId }));
    const again = await loginAsk(runtime, [login.id, relogin.id]);
    expect(again.mcpLogin.callId).toBe("w3");
    await follow(runtime, again.mcpLogin.url);
    expect(toolEnd((await third).events, "w3")).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });
  });

  it("two calls refused at once wait on one login, and both go through once it is done", async () => {
    const model = scriptedModel([
      [toolCall(TOOL, {}, { id: "w1" })],
      [text("first")],
      [toolCall(TOOL, {}, { id: "a" }), toolCall(TOOL, {}, { id: "b" })],
      [text("both")],
    ]);
    const { runtime, store, sessionId, login } = await loggedInThenRevoked(model);
    const second = collect(runtime.runs.run({ prompt: "twice", sessionId }));
    const relogin = await loginAsk(runtime, [login.id]);
    await follow(runtime, relogin.mcpLogin.url);
    const { events } = await second;
    expect(toolEnd(events, "a")).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });
    expect(toolEnd(events, "b")).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });
    expect((await store.listAsks({ kind: "mcp_login" })).length).toBe(2);
  });

  it("another process over the same store and credentials finishes the login, and the run that asked goes on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-mcp-login-"));
    try {
      const credentials = () => new FileMcpCredentials(join(dir, "mcp-auth"));
      const model = scriptedModel([[toolCall(TOOL, {}, { id: "w1" })], [text("done")]]);
      const asking = await runtimeFor(model, credentials(), await openStore(join(dir, "store")));
      // The process the browser comes back to: its own store handle, credentials read from the files.
      const other = await runtimeFor(scriptedModel([]), credentials(), await openStore(join(dir, "store")));
      const running = collect(asking.runtime.runs.run({ prompt: "who am I?" }));
      const ask = await loginAsk(other.runtime);
      expect(await follow(other.runtime, ask.mcpLogin.url)).toMatchObject({ askId: ask.id, loggedIn: true });
      const { events, result } = await running;
      expect(result.status).toBe("done");
      expect(toolEnd(events, "w1")).toMatchObject({ is_error: false, output: expect.stringMatching(/^client /) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an answer that is not accepted cannot finish a login, and a refusal at the authorization server declines it", async () => {
    const model = scriptedModel([[toolCall(TOOL, {}, { id: "w1" })], [text("ok")]]);
    const { runtime } = await runtimeFor(model);
    const running = collect(runtime.runs.run({ prompt: "who am I?" }));
    const ask = await loginAsk(runtime);
    await expect(runtime.asks.answer(ask.id, true)).rejects.toMatchObject({ code: "invalid_input" });
    await expect(runtime.mcp.finishLogin({ code: "x", state: "forged" })).rejects.toMatchObject({ code: "mcp_login_failed" });
    const state = new URL(ask.mcpLogin.url).searchParams.get("state") ?? "";
    expect(await runtime.mcp.finishLogin({ error: "access_denied", state })).toMatchObject({ loggedIn: false });
    const { result } = await running;
    // Declined at the start: the run goes on without the server's tools.
    expect(result.status).toBe("done");
    expect(server.calls).toBe(0);
  });
});
