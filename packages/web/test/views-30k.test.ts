import { beforeAll, describe, expect, it } from "vitest";
import { type BigSession, importBigSession } from "./helpers/big-session.js";
import { screenshot } from "./helpers/browser.js";
import type { WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";
import { budget, budgetNote, summary, timed } from "./helpers/timing.js";

const web = browserSuite();

/**
 * One server and one 30,000-entry session for the file: both tests only read it, and importing it
 * is a good part of a test's time. The session is open in the server's store either way (the import
 * writes it through that store), so the first loads measured are no warmer than with a server each.
 */
let server: WebServer;
let big: BigSession;
beforeAll(async () => {
  server = await web.fileServer();
  big = await importBigSession(server.store, 30_000, 5_000);
  // Writing 30,000 entries on a loaded machine: the room the tests gave it when each did it.
}, 90_000);

/**
 * Records, from inside the page, when an element matching each of `selectors` is there (ms since
 * navigation). Attribute changes count too: React Flow shows a node by changing its style.
 */
const firstSeen = (...selectors: string[]) => `new MutationObserver((_, observer) => {
  if (${JSON.stringify(selectors)}.every((s) => document.querySelector(s))) { window.__first = performance.now(); observer.disconnect(); }
}).observe(document, { subtree: true, childList: true, attributes: true });`;

describe("the timeline and compare views on a 30,000-entry session", () => {
  // Wall-clock budgets on a shared machine, as in the tree's performance test.
  it("open in under 2 s and answer clicks in under 100 ms", { timeout: 90_000, retry: 2 }, async () => {
    const page = await web.page({ width: 1920, height: 1080 });

    await page.addInitScript(firstSeen(".timeline-row"));
    await page.goto(`${server.url}/sessions/${big.meta.id}/timeline`);
    await page.locator(".timeline-row").first().waitFor();
    const timelineFirst = Math.round((await page.evaluate("window.__first")) as number);
    // It opens on the latest run; every run on one axis is the view whose size is measured here.
    await page.getByLabel("Run").selectOption("all");
    // Drawing every run of 30,000 entries is the slow part: give it the test's time, not poll's 1 s.
    await expect.poll(() => page.locator(".timeline-summary").textContent(), { timeout: 60_000 }).toMatch(/\d{4,} spans/);
    // The first click after the switch still pays for drawing every run; the ten measured are the ones after it.
    await timed(
      page,
      `document.querySelectorAll("button.span-row")[1].click()`,
      `document.querySelector('[data-testid="span-details"]')?.textContent.includes("Duration")`,
    );
    const clicks: number[] = [];
    for (let i = 0; i < 10; i++) {
      clicks.push(
        await timed(
          page,
          `document.querySelectorAll("button.span-row")[${i * 20}].click()`,
          `document.querySelector('[data-testid="span-details"]')?.textContent.includes("Duration")`,
        ),
      );
    }
    await screenshot(page, "timeline-30k-1920");

    const compare = await web.browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await compare.addInitScript(firstSeen(".compare-column li"));
    await compare.goto(`${server.url}/sessions/${big.meta.id}/compare`);
    await compare.locator(".compare-column li").first().waitFor();
    const compareFirst = Math.round((await compare.evaluate("window.__first")) as number);
    const swaps: number[] = [];
    for (let i = 0; i < 6; i++) {
      swaps.push(
        await timed(
          compare,
          `window.__before = document.querySelector(".compare-column li")?.dataset.entryId; document.querySelector('button[aria-label="Swap branches A and B"]').click()`,
          `document.querySelector(".compare-column li")?.dataset.entryId !== window.__before`,
        ),
      );
    }
    await screenshot(compare, "compare-30k-1920");

    const figures = {
      timelineFirstMs: timelineFirst,
      spanClickMs: summary(clicks),
      compareFirstMs: compareFirst,
      swapMs: summary(swaps),
    };
    console.log(`[views 30k] ${JSON.stringify(figures)}`);
    console.log(budgetNote("views 30k"));
    expect(timelineFirst).toBeLessThanOrEqual(budget(2000));
    expect(compareFirst).toBeLessThanOrEqual(budget(2000));
    expect(figures.spanClickMs.p90).toBeLessThanOrEqual(budget(100));
    expect(figures.swapMs.p90).toBeLessThanOrEqual(budget(100));
    await compare.close();
    await page.close();
  });
});

describe("the steps, chat and goal views on a 30,000-entry session with Markdown answers and a plan", () => {
  it("open in under 2 s and answer in under 100 ms", { timeout: 120_000, retry: 2 }, async () => {
    const base = `${server.url}/sessions/${big.meta.id}`;

    // Steps: the latest answers with their per-step tokens, and the context chart of ~12,000 calls.
    const steps = await web.page({ width: 1920, height: 1080 });
    await steps.addInitScript(firstSeen(".message-trace .step-usage", '[data-testid="context-chart"] path.series'));
    await steps.goto(`${base}/steps`);
    await steps.locator(".message-trace").first().waitFor();
    await steps.getByTestId("context-chart").waitFor();
    const stepsFirst = Math.round((await steps.evaluate("window.__first")) as number);
    expect(await steps.getByTestId("context-chart").locator("figcaption").textContent()).toMatch(
      /over \d{4,} calls, 1 compaction/,
    );
    expect(await steps.getByTestId("compaction-mark").count()).toBe(1);
    const stepClicks: number[] = [];
    for (let i = 1; i <= 4; i++) {
      // Open an answer folded under its summary.
      stepClicks.push(
        await timed(
          steps,
          `document.querySelectorAll(".message-trace > summary")[${i}].click()`,
          `document.querySelectorAll(".message-trace")[${i}].open && document.querySelectorAll(".message-trace")[${i}].querySelector(".step")`,
        ),
      );
    }
    for (let i = 0; i < 3; i++) {
      stepClicks.push(
        await timed(
          steps,
          `window.__n = document.querySelectorAll(".message-trace").length; document.querySelector("button.load-more").click()`,
          `document.querySelectorAll(".message-trace").length > window.__n && !document.querySelector("button.load-more")?.disabled`,
        ),
      );
    }
    await screenshot(steps, "steps-30k-1920");

    // Chat: the latest 200 turns, each answer rendered from Markdown (code highlighted, tables).
    const chat = await web.page({ width: 1920, height: 1080 });
    await chat.addInitScript(firstSeen(".msg-assistant .markdown strong"));
    await chat.goto(base);
    await chat.locator(".msg-assistant .markdown strong").first().waitFor();
    const chatFirst = Math.round((await chat.evaluate("window.__first")) as number);
    expect(await chat.locator(".msg-assistant .markdown table").count()).toBeGreaterThan(0);
    expect(await chat.locator(".msg-assistant .markdown pre code").count()).toBeGreaterThan(0);
    // Every answer in view is rendered from Markdown (those scrolled away are, as they come near).
    const inViewRendered = `(() => {
      const log = document.querySelector('[role="log"]').getBoundingClientRect();
      const shown = [...document.querySelectorAll(".msg-assistant")].filter((m) => {
        const r = m.getBoundingClientRect();
        return r.bottom > log.top && r.top < log.bottom;
      });
      return shown.length > 0 && shown.every((m) => m.querySelector(".markdown") && !m.textContent.includes("**"));
    })()`;
    await expect.poll(() => chat.evaluate(inViewRendered)).toBe(true);
    const chatClicks: number[] = [];
    for (let i = 0; i < 3; i++) {
      chatClicks.push(
        await timed(
          chat,
          `window.__n = document.querySelectorAll(".msg-assistant").length; [...document.querySelectorAll(".chat-log > button.link")].find((b) => b.textContent.startsWith("Show"))?.click()`,
          `document.querySelectorAll(".msg-assistant").length > window.__n`,
        ),
      );
    }
    // Typing in the composer does not render the conversation again.
    await chat.getByRole("textbox", { name: "Message" }).focus();
    const keys: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = Date.now();
      await chat.keyboard.type("x");
      await chat.waitForFunction(`document.querySelector("textarea").value.length === ${i + 1}`, undefined, { polling: "raf" });
      keys.push(Date.now() - t0);
    }
    await screenshot(chat, "chat-30k-1920");

    // Goals: the plan's five parts; each expands to its four steps and folds again.
    const goals = await web.page({ width: 1920, height: 1080 });
    const shownNode = (title: string) =>
      `[...document.querySelectorAll(".react-flow__node")].some((n) => n.style.visibility !== "hidden" && n.textContent.includes(${JSON.stringify(title)}))`;
    await goals.addInitScript(`new MutationObserver((_, observer) => {
      if (${shownNode("Part 5 of the work")}) { window.__first = performance.now(); observer.disconnect(); }
    }).observe(document, { subtree: true, childList: true, attributes: true });`);
    await goals.goto(`${base}/dag`);
    await goals.getByTestId("dag-canvas").getByText("Part 5 of the work").waitFor();
    await goals.waitForFunction(shownNode("Part 5 of the work"));
    const goalsFirst = Math.round((await goals.evaluate("window.__first")) as number);
    const goalClicks: number[] = [];
    for (let part = 1; part <= 3; part++) {
      const button = (verb: string) => `document.querySelector('button[aria-label="${verb} ${part} Part ${part} of the work"]')`;
      goalClicks.push(await timed(goals, `${button("Expand")}.click()`, shownNode(`Step 4 of part ${part}`)));
      goalClicks.push(await timed(goals, `${button("Collapse")}.click()`, `!${shownNode(`Step 4 of part ${part}`)}`));
    }
    // An edge's label lists the messages under its goal: a part holds some 6,000.
    goalClicks.push(
      await timed(
        goals,
        `document.querySelector('button[aria-label$="messages of 2 Part 2 of the work"]').click()`,
        `document.querySelector('[aria-label="Edge messages"] li')`,
      ),
    );
    await screenshot(goals, "goals-30k-1920");

    const figures = {
      stepsFirstMs: stepsFirst,
      stepsClickMs: summary(stepClicks),
      chatFirstMs: chatFirst,
      chatShowEarlierMs: summary(chatClicks),
      keyMs: summary(keys),
      goalsFirstMs: goalsFirst,
      goalClickMs: summary(goalClicks),
    };
    console.log(`[views 30k] ${JSON.stringify(figures)}`);
    console.log(budgetNote("views 30k"));
    expect(stepsFirst).toBeLessThanOrEqual(budget(2000));
    expect(chatFirst).toBeLessThanOrEqual(budget(2000));
    expect(goalsFirst).toBeLessThanOrEqual(budget(2000));
    expect(figures.stepsClickMs.p90).toBeLessThanOrEqual(budget(100));
    expect(figures.chatShowEarlierMs.p90).toBeLessThanOrEqual(budget(100));
    expect(figures.keyMs.p90).toBeLessThanOrEqual(budget(100));
    expect(figures.goalClickMs.p90).toBeLessThanOrEqual(budget(100));
    await goals.close();
    await chat.close();
    await steps.close();
  });
});
