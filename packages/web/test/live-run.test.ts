import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall, usage } from "@arbor/testkit";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** A first step that says something in Markdown, then reads a guarded file: the run waits on the ask. */
const SCRIPT = [
  [
    text("Here is **the plan**:\n\n- read `.env`\n- answer from it"),
    toolCall("read", { path: ".env" }),
    usage({ inputTokens: 500, outputTokens: 20 }),
  ],
  [text("It sets DEBUG=1."), usage({ inputTokens: 700, outputTokens: 10 })],
];

const figure = (page: Page, name: string) =>
  page
    .getByTestId("session-totals")
    .locator("div", { has: page.locator(`dt:text-is("${name}")`) })
    .locator("dd")
    .textContent();

describe("a run waiting on a permission ask", () => {
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    it(`renders the answer so far as Markdown, titles the header and runs its totals (${width} px)`, async () => {
      const server = await web.server({ script: SCRIPT });
      writeFileSync(join(server.cwd, ".env"), "DEBUG=1\n");
      const page = await web.page({ width, height });
      await page.goto(server.url);
      await page.getByLabel("Message").fill("What does .env set?");
      await page.getByRole("button", { name: "Send" }).click();
      await page.waitForURL(/\/sessions\/[^/]+$/);
      const sessionId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2] as string);
      const ask = page.getByRole("region", { name: /Permission request for read/ });
      await ask.waitFor();

      // The text before the ask is final: rendered, not shown as raw Markdown for as long as the ask waits.
      const live = page.locator(".live-run");
      await live.locator(".markdown strong", { hasText: "the plan" }).waitFor();
      expect(await live.locator(".markdown li").allTextContents()).toEqual(["read .env", "answer from it"]);
      expect(await live.textContent()).not.toContain("**");

      // The header names the session by its first message (it is titled when the run ends), not by its id.
      const title = page.locator("#session-title");
      await expect.poll(() => title.textContent()).toBe("What does .env set?");
      expect(await title.textContent()).not.toContain(sessionId);
      // The first step's spending is in the header while the run still waits.
      await expect.poll(() => figure(page, "Input")).toBe("500");
      expect(await figure(page, "Steps")).toBe("1");
      expect(await figure(page, "Cost")).toBe("price unknown");
      const tabs = page.getByRole("navigation", { name: "Session views" });
      const before = await tabs.boundingBox();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `live-ask-${width}`);

      await ask.getByRole("button", { name: "Allow once" }).click();
      await page.getByText("It sets DEBUG=1.").waitFor();
      await live.waitFor({ state: "detached" });
      await expect.poll(() => figure(page, "Steps")).toBe("2");
      expect(await figure(page, "Input")).toBe("1200");
      // The tabs stay where they were when the run ends.
      expect(await tabs.boundingBox()).toEqual(before);
      await screenshot(page, `live-done-${width}`);
      await page.close();
    });
  }
});
