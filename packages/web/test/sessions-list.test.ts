import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe("sessions list", () => {
  it("pages newest first, searches by title and id, and nests sub-traces under their parent", async () => {
    const server = await web.server();
    const parent = await server.store.createSession({ title: "Parent run" });
    await server.store.createSession({
      title: "Explore branch A",
      parentSessionId: parent.id,
      agentType: "explore",
      mode: "agent",
    });
    // 55 more, so the first page (50) leaves the parent and its sub-trace on the next one.
    for (let i = 0; i < 55; i++) await server.store.createSession({ title: `Session ${String(i).padStart(2, "0")}` });

    const page = await web.page();
    await page.goto(server.url);
    const items = page.locator(".session-tree > .session-item");
    await page.getByText("Session 54").waitFor();
    // Newest first: the last created is on top.
    expect(await items.first().locator(".session-title").textContent()).toBe("Session 54");
    expect(await page.getByText("Parent run").count()).toBe(0);
    await screenshot(page, "sessions-first-page");

    await page.getByRole("button", { name: "Load older sessions" }).click();
    await page.getByText("Parent run").waitFor();
    // The sub-trace sits inside its parent's item, not at the top level, folded until asked for.
    const parentItem = page.locator(`.session-item[data-session-id="${parent.id}"]`);
    expect(await page.locator(".session-tree > .session-item").count()).toBe(56);
    await expect(page.getByRole("button", { name: "Load older sessions" }).count()).resolves.toBe(0);
    expect(await parentItem.getByText("Explore branch A").count()).toBe(0);

    // Open the sub-traces with the keyboard.
    await parentItem.getByRole("button", { name: /Show 1 sub-traces/ }).focus();
    await page.keyboard.press("Enter");
    await parentItem.getByText("Explore branch A").waitFor();
    await parentItem.getByRole("button", { name: /Hide 1 sub-traces/ }).waitFor();
    await page.keyboard.press("Enter");
    await parentItem.getByText("Explore branch A").waitFor({ state: "detached" });

    const search = page.getByLabel("Search sessions");
    await search.fill("branch a");
    // A matching sub-trace keeps its parent so it shows where it belongs, opened to show it.
    await expect.poll(() => page.locator(".session-tree > .session-item").count()).toBe(1);
    await parentItem.getByText("Explore branch A").waitFor();
    await search.fill(parent.id.slice(0, 12));
    await page.locator(".session-tree > .session-item").first().getByText("Parent run").waitFor();
    await search.fill("Session 07");
    await expect.poll(() => page.locator(".session-tree .session-item").count()).toBe(1);
    await screenshot(page, "sessions-search");

    await page.getByText("Session 07").click();
    await page.waitForURL(/\/sessions\//);
    await page.getByRole("heading", { name: "Session 07" }).waitFor();
    await page.close();
  });

  it("serves the shell without a token and sends the token the user gives with API calls", async () => {
    const secured = await web.server({ token: "s3cret-token" });
    await secured.store.createSession({ title: "Guarded session" });
    const page = await web.page({ colorScheme: "dark" });
    const res = await page.goto(`${secured.url}/sessions/anything/tree`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-type"]).toMatch(/^text\/html/);
    await page
      .getByRole("alert")
      .getByText(/needs a token/)
      .waitFor();
    await page.getByLabel("API token").fill("s3cret-token");
    await page.getByRole("button", { name: "Use" }).click();
    await page.goto(secured.url);
    await page.getByText("Guarded session").waitFor();
    await screenshot(page, "sessions-token-dark");
    await page.close();
  });
});
