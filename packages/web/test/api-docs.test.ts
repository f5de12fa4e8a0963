import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe("the API reference page", () => {
  it("renders every route from the OpenAPI document and calls the API with the inspector's token", async () => {
    const server = await web.server({ token: "docs-token" });
    const page = await web.page({ width: 1440, height: 900 });
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
