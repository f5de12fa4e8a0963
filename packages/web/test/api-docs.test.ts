import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, screenshot } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/server.js";

let browser: Browser;
let server: WebServer | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await browser?.close();
});

describe("the API reference page", () => {
  it("renders every route from the OpenAPI document and calls the API with the inspector's token", async () => {
    server = await startWebServer({ token: "docs-token" });
    const page = await openPage(browser, { width: 1440, height: 900 });
    // The inspector keeps the token in localStorage; the reference page on the same origin uses it.
    await page.goto(`${server.url}/api/docs`);
    await page.evaluate(() => localStorage.setItem("arbor.token", "docs-token"));
    await page.reload();
    await page.getByRole("heading", { name: /Arbor/ }).first().waitFor();
    const chat = page.locator(".opblock-summary-path", { hasText: /^\/api\/chat$/ });
    await chat.first().waitFor();
    expect(await page.locator(".opblock").count()).toBeGreaterThan(25);
    await screenshot(page, "api-docs");

    // "Try it out" on the health route and on a guarded one: both answer 200 with the token sent.
    const sessions = page
      .locator(".opblock-get", { has: page.locator(".opblock-summary-path", { hasText: /^\/api\/sessions$/ }) })
      .first();
    await sessions.locator(".opblock-summary").click();
    await sessions.getByRole("button", { name: "Try it out" }).click();
    await sessions.getByRole("button", { name: "Execute" }).click();
    await sessions.locator(".live-responses-table tbody .response-col_status").first().waitFor();
    expect(await sessions.locator(".live-responses-table tbody .response-col_status").first().textContent()).toContain("200");
  });
});
