import { resolveConfig } from "@arbor/core";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formElicitingServer, urlElicitingServer } from "../../core/test/mcp/servers.js";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
const mcp: Array<{ url: string; close(): Promise<void> }> = [];

beforeAll(async () => {
  mcp.push(await formElicitingServer(), await urlElicitingServer());
});
afterAll(async () => {
  for (const s of mcp) await s.close();
});

const config = () =>
  resolveConfig([
    {
      source: "test",
      value: {
        mcp: {
          servers: {
            tickets: { url: mcp[0]?.url as string, timeoutMs: 60_000 },
            accounts: { url: mcp[1]?.url as string, timeoutMs: 60_000 },
          },
        },
        permission: { "mcp__*": "allow" },
      },
    },
  ]);

/** What the MCP server got back: its tool's output, which the model read as the call's result. */
const toolResult = (model: ReturnType<typeof scriptedModel>, call = 1) => JSON.stringify(model.calls[call]?.prompt);

/** The page's reads of the pending asks (`GET /api/asks`): the run's events announce elicitations, so these stay few. */
function asksReads(page: Page): string[] {
  const reads: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "GET" && new URL(r.url()).pathname === "/api/asks") reads.push(r.url());
  });
  return reads;
}

describe("an MCP server's elicitation in the inspector", () => {
  it("renders the form from the server's schema, refuses it without the required field, and sends what was filled in", async () => {
    const model = scriptedModel([[toolCall("mcp__tickets__file_ticket", {}, { id: "t1" })], [text("Filed.")]]);
    const server = await web.server({ model, config: config() });
    const page = await web.page({ width: 1280, height: 900 });
    const reads = asksReads(page);
    await page.goto(server.url);
    await page.getByLabel("Message").fill("File a ticket.");
    await page.getByRole("button", { name: "Send" }).click();
    const card = page.getByRole("region", { name: "MCP server tickets asks: Describe the ticket to file." });
    await card.waitFor();
    // Typed per the schema, the defaults filled in.
    expect(await card.getByLabel("Priority").inputValue()).toBe("normal");
    expect(await card.getByLabel("Urgent").isChecked()).toBe(false);
    expect(await card.getByLabel("Estimate (hours)").getAttribute("type")).toBe("number");
    expect(await seriousViolations(page)).toEqual([]);
    await card.getByRole("button", { name: "Accept" }).click();
    await card.getByRole("alert").filter({ hasText: "Fill in Title." }).waitFor();

    await card.getByLabel("Title (required)").fill("Printer on fire");
    await card.getByLabel("Priority").selectOption("high");
    await card.getByLabel("Estimate (hours)").fill("1.5");
    await card.getByLabel("Urgent").check();
    await screenshot(page, "elicitation-form");
    await card.getByRole("button", { name: "Accept" }).click();
    await page.getByText("Filed.").first().waitFor();
    expect(await card.count()).toBe(0);
    expect(toolResult(model)).toContain(
      'content: {\\"title\\":\\"Printer on fire\\",\\"priority\\":\\"high\\",\\"estimate\\":1.5,\\"urgent\\":true}',
    );
    // The form waited a while to be filled in: read at most once, when the session's page opened, never polled.
    expect(reads.length).toBeLessThanOrEqual(1);
    const asks = await server.store.listAsks({});
    expect(asks.map((a) => [a.kind, a.answer?.value])).toEqual([
      ["elicitation", { action: "accept", content: { title: "Printer on fire", priority: "high", estimate: 1.5, urgent: true } }],
    ]);
  });

  it("shows a URL elicitation's page as a link, and accepts it without content", async () => {
    const model = scriptedModel([[toolCall("mcp__accounts__connect_account", {}, { id: "c1" })], [text("Connected.")]]);
    const server = await web.server({ model, config: config() });
    const page = await web.page({ width: 1280, height: 900 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Connect my account.");
    await page.getByRole("button", { name: "Send" }).click();
    const card = page.getByRole("region", { name: /MCP server accounts asks: Sign in to Example/ });
    await card.waitFor();
    expect(await card.getByRole("link").getAttribute("href")).toBe("https://example.test/connect?state=abc");
    await screenshot(page, "elicitation-url");
    await card.getByRole("button", { name: "Accept (I will open it)" }).click();
    await page.getByText("Connected.").first().waitFor();
    expect(toolResult(model)).toContain("action: accept");
    const asks = await server.store.listAsks({});
    expect(asks.map((a) => [a.kind, a.answer?.value])).toEqual([["elicitation", { action: "accept" }]]);
  });

  it("a later run's form comes from its run event alone: the asks were read only when the page opened", async () => {
    const model = scriptedModel([
      [text("Hello.")],
      [toolCall("mcp__tickets__file_ticket", {}, { id: "t2" })],
      [text("Not filed.")],
    ]);
    const server = await web.server({ model, config: config() });
    const page = await web.page({ width: 1280, height: 900 });
    const reads = asksReads(page);
    await page.goto(server.url);
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("Hi.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Hello.").first().waitFor();
    await page.waitForURL(/\/sessions\//);
    await expect.poll(() => reads.length).toBe(1);

    await box.fill("File a ticket.");
    await page.getByRole("button", { name: "Send" }).click();
    const card = page.getByRole("region", { name: "MCP server tickets asks: Describe the ticket to file." });
    await card.waitFor();
    expect(reads).toHaveLength(1);
    await card.getByRole("button", { name: "Decline" }).click();
    await page.getByText("Not filed.").first().waitFor();
    expect(await card.count()).toBe(0);
    expect(toolResult(model, 2)).toContain("action: decline");
    expect(reads).toHaveLength(1);
  });
});
