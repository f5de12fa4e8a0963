import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe("approvals in the inspector", () => {
  it("answers an ask 'always' for the project, lists the approval in the session's header and revokes it", async () => {
    const server = await web.server({
      script: [[text("Reading it."), toolCall("read", { path: ".env" })], [text("It sets DEBUG=1.")]],
    });
    writeFileSync(join(server.cwd, ".env"), "DEBUG=1\n");
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("What does .env set?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/\/sessions\/[^/]+$/);

    const ask = page.getByRole("region", { name: /Permission request for read/ });
    await ask.getByLabel("Remember for").selectOption("project");
    await ask.getByRole("button", { name: "Always allow" }).click();
    await page.getByText("It sets DEBUG=1.").waitFor();

    // A project approval is kept in the workspace, for every session there.
    const file = join(server.cwd, ".arbor", "approvals.json");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toContain(".env");

    await page.reload();
    const panel = page.getByTestId("approvals-panel");
    await panel.getByText("Approvals: 1").click();
    const item = panel.locator("li.approval");
    expect(await item.count()).toBe(1);
    expect(await item.textContent()).toContain("this project");
    await screenshot(page, "approvals-panel");

    await panel.getByRole("button", { name: /^Revoke read / }).click();
    await panel.waitFor({ state: "detached" });
    const listed = (await (await server.api(`/api/approvals?session_id=${page.url().split("/").pop()}`)).json()) as {
      approvals: unknown[];
    };
    expect(listed.approvals).toEqual([]);
  });
});
