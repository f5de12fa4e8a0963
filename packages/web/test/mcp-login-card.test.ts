import { resolveConfig } from "@arbor/core";
import { MemoryMcpCredentials } from "@arbor/core/tools";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OAuthTestServer, startOAuthServer } from "../../core/test/helpers/oauth-server.js";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
let oauth: OAuthTestServer;
beforeEach(async () => {
  oauth = await startOAuthServer();
});
afterEach(async () => {
  await oauth.close();
});

/** A server whose MCP server `remote` wants a login, which runs ask for with the inspector's server as the callback. */
async function serve(model: ReturnType<typeof scriptedModel>) {
  const where = { base: "" };
  const server = await web.server({
    model,
    config: resolveConfig([
      { source: "test", value: { mcp: { servers: { remote: { url: oauth.mcpUrl, timeoutMs: 30_000 } } } } },
    ]),
    runtime: {
      mcpCredentials: new MemoryMcpCredentials(),
      mcpLoginRedirect: () => (where.base ? `${where.base}/api/mcp/oauth/callback` : undefined),
    },
  });
  where.base = server.url;
  const created = (await (await server.api("/api/sessions", { json: {} })).json()) as { id: string };
  return { server, sessionId: created.id };
}

/** Sends "Who am I?" from the inspector's chat page over `serve(model)`: the login card is the one it would show. */
async function askWhoAmI(model: ReturnType<typeof scriptedModel>) {
  const { server, sessionId } = await serve(model);
  const page = await web.page({ width: 1280, height: 900 });
  await page.goto(`${server.url}/sessions/${sessionId}`);
  await page.getByLabel("Message").fill("Who am I?");
  await page.getByRole("button", { name: "Send" }).click();
  return { server, page, card: page.getByRole("region", { name: "Log in to MCP server remote" }) };
}

describe("an MCP login in the inspector", () => {
  it("shows a card whose link opens the login page; the browser's return finishes it and the run uses the tool", async () => {
    const model = scriptedModel([[toolCall("mcp__remote__whoami", {}, { id: "w1" })], [text("You are a client.")]]);
    const { page, card } = await askWhoAmI(model);
    await card.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "mcp-login-card");
    const link = card.getByRole("link", { name: "Open login page" });
    expect(await link.getAttribute("target")).toBe("_blank");
    const [login] = await Promise.all([page.waitForEvent("popup"), link.click()]);
    await login.getByText("Logged in to remote").waitFor();
    await page.getByText("You are a client.").first().waitFor();
    expect(await card.count()).toBe(0);
    expect(oauth.calls).toBe(1);
  });

  it("Cancel declines the login: the run goes on without the server", async () => {
    const model = scriptedModel([[text("Without it, then.")]]);
    const { server, page, card } = await askWhoAmI(model);
    await card.getByRole("button", { name: "Cancel" }).click();
    await page.getByText("Without it, then.").first().waitFor();
    expect(await card.count()).toBe(0);
    const asks = await server.store.listAsks({});
    expect(asks.map((a) => [a.kind, a.answer?.value])).toEqual([["mcp_login", { action: "decline" }]]);
  });
});
