import { text } from "@arbor/testkit";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { importBigSession } from "./helpers/big-session.js";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd, type WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";
import { budget, budgetNote, summary, timed } from "./helpers/timing.js";

const web = browserSuite();

/** A server with a session of two turns; its model has a third answer left, for a new branch. */
async function twoTurns(): Promise<{ server: WebServer; sessionId: string }> {
  const server = await web.server({
    script: [[text("First answer")], [text("Second answer")], [text("Answer on a new branch")]],
  });
  const sessionId = await chatToEnd(server, { message: "First question" });
  await chatToEnd(server, { message: "Second question", session_id: sessionId });
  return { server, sessionId };
}

/**
 * Presses Tab (or Shift+Tab) until `target` has the focus, as a keyboard user would; fails when it is
 * not reached within `limit` presses, which is what an action without a keyboard path looks like.
 */
async function tabTo(page: Page, target: Locator, options: { back?: boolean; limit?: number } = {}): Promise<void> {
  for (let i = 0; i < (options.limit ?? 60); i++) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return;
    await page.keyboard.press(options.back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`${target} was not reached with the keyboard`);
}

/** Moves the tree's selection with the arrow keys until the selected row shows `text`. */
async function arrowTo(page: Page, text: string, key: "ArrowDown" | "ArrowUp" = "ArrowDown"): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if ((await page.locator(".tree-row.selected").textContent())?.includes(text)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`no row with "${text}" reached with ${key}`);
}

describe("session tree", () => {
  // Wall-clock budgets on a shared 2-core machine: a burst of other work can push one attempt over,
  // while a slow app fails every attempt.
  it("renders a 30,000-entry session in under 2 s and scrolls and expands in under 100 ms", {
    timeout: 90_000,
    retry: 2,
  }, async () => {
    const server = await web.server();
    const big = await importBigSession(server.store, 30_000, 5_000);
    const page = await web.page({ width: 1920, height: 1080 });
    // Recorded from inside the page: the time from navigation start until the first tree row exists.
    await page.addInitScript(`new MutationObserver((_, observer) => {
      if (document.querySelector(".tree-row")) { window.__firstRow = performance.now(); observer.disconnect(); }
    }).observe(document, { subtree: true, childList: true });`);
    await page.goto(`${server.url}/sessions/${big.meta.id}/tree`);
    await page.locator(".tree-row").first().waitFor();
    const firstRender = Math.round((await page.evaluate("window.__firstRow")) as number);
    expect(await page.getByTestId("tree-stats").textContent()).toContain("30000 entries");

    // It opens at the leaf, with the compaction and branch summary above it on the active path.
    const leafRow = page.locator('.tree-row[aria-current="location"]');
    await leafRow.waitFor();
    expect(await leafRow.locator(".label-chip").textContent()).toBe("checkpoint");
    expect(await page.locator(".tree-row.kind-compaction.on-path").count()).toBe(1);
    expect(await page.locator(".tree-row.kind-branch_summary.on-path").count()).toBe(1);
    await screenshot(page, "tree-30k-leaf-1920");

    // Scrolling: jump to ten places; each must show its rows in the next frames.
    const list = ".vlist";
    const scrolls: number[] = [];
    for (let i = 1; i <= 10; i++) {
      const row = Math.floor((30_000 * i) / 11);
      scrolls.push(
        await timed(
          page,
          `document.querySelector("${list}").scrollTop = ${row * 28}`,
          `[...document.querySelectorAll(".tree-row")].some((r) => Math.abs(parseFloat(r.style.top) - ${row * 28}) < 1)`,
        ),
      );
    }

    // Expanding and collapsing the 5,000-entry side branch at its fork.
    await page.evaluate(`document.querySelector("${list}").scrollTop = ${(99 - 5) * 28}`);
    const fork = page.locator(`.tree-row[data-entry-id="${big.forkId}"]`);
    await fork.waitFor();
    const twisty = `document.querySelector('.tree-row[data-entry-id="${big.forkId}"] .twisty')`;
    const toggles: number[] = [];
    for (let i = 0; i < 3; i++) {
      toggles.push(await timed(page, `${twisty}.click()`, `${twisty}.getAttribute("aria-label").startsWith("Show")`));
      expect(await page.getByTestId("tree-stats").textContent()).toContain("30000 entries");
      toggles.push(await timed(page, `${twisty}.click()`, `${twisty}.getAttribute("aria-label").startsWith("Hide")`));
    }

    // Keyboard: arrow down through the rows.
    await fork.click();
    await page.locator(list).focus();
    const keys: number[] = [];
    for (let i = 0; i < 10; i++) {
      const before = (await page.locator(".tree-row.selected").getAttribute("data-entry-id")) as string;
      const t0 = Date.now();
      await page.keyboard.press("ArrowDown");
      await page.waitForFunction(`document.querySelector(".tree-row.selected")?.dataset.entryId !== "${before}"`, undefined, {
        polling: "raf",
      });
      keys.push(Date.now() - t0);
    }
    await screenshot(page, "tree-30k-fork-1920");

    // The first render's parts, from the app's performance marks (ms since navigation start).
    const marks = (await page.evaluate(
      `Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, Math.round(m.startTime)]))`,
    )) as Record<string, number>;
    const figures = {
      firstRenderMs: firstRender,
      marks,
      scrollMs: summary(scrolls),
      expandCollapseMs: summary(toggles),
      arrowKeyMs: summary(keys),
    };
    console.log(`[tree 30k] ${JSON.stringify(figures)}`);
    console.log(budgetNote("tree 30k"));
    expect(firstRender).toBeLessThanOrEqual(budget(2000));
    // The 90th percentile, not the maximum: CI machines are shared, and one descheduled frame is not the app.
    expect(figures.scrollMs.p90).toBeLessThanOrEqual(budget(100));
    expect(figures.expandCollapseMs.p90).toBeLessThanOrEqual(budget(100));
    expect(figures.arrowKeyMs.p90).toBeLessThanOrEqual(budget(100));
    await page.close();
  });

  it("switches branch, labels, continues from an earlier message and forks", async () => {
    const { server, sessionId } = await twoTurns();

    const page = await web.page({ colorScheme: "dark" });
    await page.goto(`${server.url}/sessions/${sessionId}/tree`);
    const firstQuestion = page.locator(".tree-row", { hasText: "First question" });
    await firstQuestion.click();
    const details = page.getByRole("region", { name: "Selected entry" });
    await details.getByText("on the active path").waitFor();

    // Label it.
    await details.getByLabel("Label").fill("start");
    await details.getByRole("button", { name: "Save label" }).click();
    await firstQuestion.locator(".label-chip", { hasText: "start" }).waitFor();

    // Continue from it: a user message is re-sent from its parent, so the new message is its sibling.
    await details.getByRole("button", { name: "Continue from here" }).click();
    await page.waitForURL(new RegExp(`/sessions/${sessionId}$`));
    await page.getByRole("status").getByText("Continuing from").waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("First question, asked again");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Answer on a new branch").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });
    // The earlier turns are now on another branch, out of the chat.
    expect(await page.getByText("Second answer").count()).toBe(0);

    await page.getByRole("link", { name: "Tree" }).click();
    await page.getByTestId("tree-stats").getByText("1 side branch").waitFor();
    const snapshot = (await (await server.api(`/api/sessions/${sessionId}`)).json()) as {
      entries: Array<{ id: string; parentId: string | null; type: string; message?: { content: Array<{ text?: string }> } }>;
    };
    const byText = (t: string) => snapshot.entries.find((e) => e.message?.content[0]?.text === t);
    expect(byText("First question, asked again")?.parentId).toBe(byText("First question")?.parentId);
    await screenshot(page, "tree-branched-dark");

    // Switch back to the old branch: its last answer becomes the leaf and the active path.
    const oldAnswer = page.locator(".tree-row", { hasText: "Second answer" });
    await oldAnswer.click();
    await details.getByText("on another branch").waitFor();
    await details.getByRole("button", { name: "Switch branch here" }).click();
    await page.locator('.tree-row.on-path[aria-current="location"]', { hasText: "Second answer" }).waitFor();
    expect(await page.locator(".tree-row.on-path", { hasText: "asked again" }).count()).toBe(0);

    // Fork at the first answer: a new session holding root → that entry.
    await page.locator(".tree-row", { hasText: "First answer" }).click();
    await details.getByRole("button", { name: "Fork to new session" }).click();
    await page.waitForURL((url) => url.pathname.endsWith("/tree") && !url.pathname.includes(sessionId));
    await page.locator('.tree-row[aria-current="location"]', { hasText: "First answer" }).waitFor();
    expect(await page.locator(".tree-row", { hasText: "Second question" }).count()).toBe(0);
    expect(await page.locator(".tree-row", { hasText: "asked again" }).count()).toBe(0);
    await page.close();
  });

  it("labels, continues, switches branch and forks from the keyboard alone", async () => {
    const { server, sessionId } = await twoTurns();

    const page = await web.page();
    await page.goto(`${server.url}/sessions/${sessionId}/tree`);
    const tree = page.getByRole("tree", { name: "Session tree" });
    await page.locator(".tree-row").first().waitFor();
    const details = page.getByRole("region", { name: "Selected entry" });

    // Label: into the tree, up to the first question, on to the label field.
    await tabTo(page, tree);
    await page.keyboard.press("Home");
    await arrowTo(page, "First question");
    await tabTo(page, details.getByLabel("Label"));
    await page.keyboard.type("start");
    await page.keyboard.press("Enter");
    await page.locator(".tree-row", { hasText: "First question" }).locator(".label-chip", { hasText: "start" }).waitFor();

    // Continue from here, then write and send the message without the mouse.
    await tabTo(page, details.getByRole("button", { name: "Continue from here" }), { back: true });
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`/sessions/${sessionId}$`));
    await page.getByRole("status").getByText("Continuing from").waitFor();
    // The message box has the focus already: continuing means writing the new message.
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('placeholder') ?? ''")).toMatch(/^Ask the agent/);
    await page.keyboard.type("First question, asked again");
    await page.keyboard.press("Enter");
    await page.getByText("Answer on a new branch").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });

    // Back to the tree by its tab, and switch to the old branch's last answer.
    await tabTo(page, page.getByRole("link", { name: "Tree" }), { back: true });
    await page.keyboard.press("Enter");
    await page.getByTestId("tree-stats").getByText("1 side branch").waitFor();
    await tabTo(page, tree);
    await page.keyboard.press("Home");
    await arrowTo(page, "Second answer");
    await details.getByText("on another branch").waitFor();
    await tabTo(page, details.getByRole("button", { name: "Switch branch here" }));
    await page.keyboard.press("Enter");
    await page.locator('.tree-row.on-path[aria-current="location"]', { hasText: "Second answer" }).waitFor();
    expect(await page.locator(".tree-row.on-path", { hasText: "asked again" }).count()).toBe(0);
    // The focus is back on the tree (the switch button, now disabled, cannot keep it).
    expect(await tree.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await screenshot(page, "tree-keyboard-switched");

    // Fork at the first answer.
    await page.keyboard.press("Home");
    await arrowTo(page, "First answer");
    await tabTo(page, details.getByRole("button", { name: "Fork to new session" }));
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname.endsWith("/tree") && !url.pathname.includes(sessionId));
    await page.locator('.tree-row[aria-current="location"]', { hasText: "First answer" }).waitFor();
    expect(await page.locator(".tree-row", { hasText: "Second question" }).count()).toBe(0);
    await page.close();
  });
});
