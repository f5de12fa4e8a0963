import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** The words the model reads around a steering message; the page must never show them. */
const WRAPPER = /system-reminder|While you were working|Please address this message/;

/** Everything the page shows or keeps in its markup (a wrapper hidden by CSS would still leak to a screen reader). */
const pageText = (page: Page) => page.evaluate("document.body.innerHTML") as Promise<string>;

describe("steering as the user sees it", () => {
  it("shows the message at once marked as steering, then read by the agent at its next step, never the model's wrapper", {
    timeout: 120_000,
  }, async () => {
    // Each step reads a file, so a permission ask holds the run at each step boundary.
    const model = scriptedModel([
      [text("Reading it."), toolCall("read", { path: ".env" })],
      [text("Noted: blue. Checking again."), toolCall("read", { path: ".env" })],
      [text("Done, in blue.")],
    ]);
    const server = await web.server({ model });
    writeFileSync(join(server.cwd, ".env"), "DEBUG=1\n");
    const page = await web.page({ width: 1280, height: 900 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Read .env");
    await page.getByRole("button", { name: "Send" }).click();
    const asks = page.getByRole("region", { name: /Permission request for read/ });
    await asks.first().waitFor();

    // Sent while the run waits on the ask: it is shown at once, under what the run did so far.
    const composer = page.getByRole("form", { name: "Composer" });
    await composer.getByLabel("Message").fill("Also make it blue.");
    await composer.getByRole("button", { name: "Steer" }).click();
    const steered = page.getByRole("article", { name: "User message (steering)" });
    await steered.waitFor();
    expect(await steered.locator(".msg-text").textContent()).toBe("Also make it blue.");
    await expect.poll(() => steered.getAttribute("data-steer-status")).toBe("waiting");
    expect(await steered.locator(".steer-mark").textContent()).toMatch(/^steering …/);
    expect(await pageText(page)).not.toMatch(WRAPPER);
    await screenshot(page, "steering-waiting");

    // The run's next step takes it in (the model reads it wrapped), and the page says so while the run goes on.
    await asks.first().getByRole("button", { name: "Allow once" }).click();
    await page.getByText("Noted: blue. Checking again.").waitFor();
    await expect.poll(() => steered.getAttribute("data-steer-status")).toBe("read");
    expect(await steered.locator(".steer-mark").textContent()).toBe("steering · read by the agent");
    expect(JSON.stringify(model.calls[1]?.prompt)).toMatch(/While you were working[^"]*Also make it blue\./);
    expect(await pageText(page)).not.toMatch(WRAPPER);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "steering-read");

    // Once the run ends, the session's history shows it the same way, between the answers it split.
    await asks.nth(1).getByRole("button", { name: "Allow once" }).click();
    await page.getByText("Done, in blue.").waitFor();
    await expect.poll(() => page.locator(".live-run").count()).toBe(0);
    const log = page.getByRole("log", { name: "Conversation" });
    const shown = await log
      .locator("article")
      .evaluateAll((articles) =>
        articles.map((a) => `${a.getAttribute("aria-label")}: ${a.querySelector(".msg-text, .markdown")?.textContent?.trim()}`),
      );
    expect(shown).toEqual([
      "User message: Read .env",
      "Assistant message: Reading it.",
      "User message (steering): Also make it blue.",
      "Assistant message: Noted: blue. Checking again.",
      "Assistant message: Done, in blue.",
    ]);
    expect(await steered.locator(".steer-mark").textContent()).toBe("steering · read by the agent");
    expect(await pageText(page)).not.toMatch(WRAPPER);

    // The session tree names it as steering too, and its details show what the user typed.
    await page.getByRole("navigation", { name: "Session views" }).getByRole("link", { name: "Tree" }).click();
    await page.getByText("Steering: Also make it blue.").waitFor();
    expect(await pageText(page)).not.toMatch(WRAPPER);
    await page.close();
  });
});
