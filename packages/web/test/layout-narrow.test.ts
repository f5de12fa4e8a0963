import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Snapshot } from "@arbor/core";
import { text, toolCall, usage } from "@arbor/testkit";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd, type WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const WIDTH = 390;

const web = browserSuite();
let server: WebServer;
let sessionId: string;
beforeAll(async () => {
  server = await web.fileServer({
    script: [
      [toolCall("goal", { add: "Read the notes, Answer the question", focus: "1" })],
      [text("Reading."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 1300, outputTokens: 40 })],
      [toolCall("goal", { done: "The notes were read", focus: "2" })],
      [
        text("The notes say **hello**, with `code` and a [link](https://example.com)."),
        usage({ inputTokens: 1500, outputTokens: 30 }),
      ],
      [text("A second branch's answer, which is different."), usage({ inputTokens: 700, outputTokens: 25 })],
    ],
  });
  writeFileSync(join(server.cwd, "notes.txt"), "hello\n");
  sessionId = await chatToEnd(server, { message: "What do the notes say?", debug: "full" });
  // A second branch after the plan was made, so Compare has two paths to set side by side and the
  // active one still holds the goals.
  const snapshot = (await (await server.api(`/api/sessions/${sessionId}`)).json()) as Snapshot;
  // Branch after the goal call's result (the first tool message), which holds the plan.
  const planned = snapshot.entries.find((e) => e.type === "message" && e.message.role === "tool")?.id;
  await chatToEnd(server, { message: "Say it another way", session_id: sessionId, from_entry_id: planned });
});

interface Fit {
  pageWidth: number;
  /** Visible text smaller than 11 px (10 px on the goal canvas, scaled by its zoom), with the text. */
  tinyText: string[];
  /** Boxes that scroll sideways, other than those meant to (the tabs, a wide table, code). */
  sideways: string[];
  /** Visible controls out of the width, in no box that is meant to scroll sideways. */
  unreachable: string[];
}

/**
 * Measured in the page (as text: the tests are compiled without the DOM's types): the page's width,
 * text too small to read, boxes that run past the width, and controls a person cannot get to. The
 * goal canvas pans, so its nodes are left to the checks below, but its words are scaled by its zoom.
 */
function measure(page: Page): Promise<Fit> {
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const visible = (el) => {
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
    };
    const zoomOf = (el) => {
      const viewport = el.closest(".react-flow__viewport");
      return viewport ? new DOMMatrixReadOnly(getComputedStyle(viewport).transform).a : 1;
    };
    const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
    const tinyText = [];
    for (const el of document.querySelectorAll("main *")) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
      if (!own || !visible(el)) continue;
      // The goal canvas's own minimum is 10 px at its smallest zoom; elsewhere text is 11 px or more.
      const zoom = zoomOf(el);
      const size = Number.parseFloat(getComputedStyle(el).fontSize) * zoom;
      if (size < (el.closest(".react-flow__viewport") ? 10 : 11)) tinyText.push(size.toFixed(1) + "px: " + el.textContent.trim().slice(0, 40));
    }
    const meant = (el) => el.matches(".tabs, .table-scroll, pre");
    const sideways = [];
    for (const el of document.querySelectorAll("main *")) {
      const o = getComputedStyle(el).overflowX;
      if ((o === "auto" || o === "scroll") && el.scrollWidth > el.clientWidth + 1 && !meant(el)) {
        sideways.push(name(el) + " " + el.clientWidth + " < " + el.scrollWidth);
      }
    }
    const inMeantScroller = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) if (meant(p)) return true;
      return false;
    };
    const unreachable = [];
    for (const el of document.querySelectorAll("main button, main a[href], main input, main select, main textarea, main summary")) {
      if (!visible(el) || el.closest(".react-flow")) continue;
      const r = el.getBoundingClientRect();
      if ((r.left < -1 || r.right > width + 1) && !inMeantScroller(el)) {
        unreachable.push((el.getAttribute("aria-label") || el.textContent.trim() || el.tagName).slice(0, 40) + " at " + Math.round(r.left) + "–" + Math.round(r.right));
      }
    }
    return { pageWidth: document.documentElement.scrollWidth, tinyText, sideways, unreachable };
  })()`) as Promise<Fit>;
}

/** The goal canvas: is every node inside it, and is any under the zoom buttons? */
function goalCanvas(page: Page): Promise<{ allInView: boolean; underControls: string[] }> {
  return page.evaluate(`(() => {
    const box = document.querySelector('[data-testid="dag-canvas"]').getBoundingClientRect();
    const controls = document.querySelector(".react-flow__controls").getBoundingClientRect();
    const nodes = [...document.querySelectorAll(".goal-node")];
    const inside = (r) => r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    const overlaps = (r) => r.left < controls.right && r.right > controls.left && r.top < controls.bottom && r.bottom > controls.top;
    return {
      allInView: nodes.every((n) => inside(n.getBoundingClientRect())),
      underControls: nodes.filter((n) => overlaps(n.getBoundingClientRect())).map((n) => n.textContent.trim()),
    };
  })()`) as Promise<{ allInView: boolean; underControls: string[] }>;
}

interface Axis {
  trackWidth: number;
  overlappingTicks: number;
  ticksOutside: number;
}

/** The timeline's bars have room, and its time axis's labels stay on the axis without running into each other. */
function timelineAxis(page: Page): Promise<Axis> {
  return page.evaluate(`(() => {
    const track = document.querySelector(".timeline-row .timeline-track").getBoundingClientRect();
    const axis = document.querySelector(".timeline-axis .timeline-track").getBoundingClientRect();
    const ticks = [...document.querySelectorAll(".timeline-axis .tick")].map((t) => t.getBoundingClientRect());
    let overlappingTicks = 0;
    for (let i = 1; i < ticks.length; i++) if (ticks[i].left < ticks[i - 1].right) overlappingTicks++;
    const ticksOutside = ticks.filter((t) => t.left < axis.left - 1 || t.right > axis.right + 1).length;
    return { trackWidth: Math.round(track.width), overlappingTicks, ticksOutside };
  })()`) as Promise<Axis>;
}

/** Each tab with what shows it is drawn, and one of its controls that must work at this width. */
const TABS: Array<[tab: string, link: string, ready: (page: Page) => Promise<unknown>]> = [
  ["dag", "Goals", (p) => p.getByTestId("dag-canvas").getByText("Read the notes").waitFor()],
  // The timeline shows the latest run by default (a model call; its tools ran in the earlier run).
  ["timeline", "Timeline", (p) => p.getByRole("list", { name: "Timeline" }).locator("button.span-row").first().waitFor()],
  ["compare", "Compare", (p) => p.getByRole("region", { name: "Branch B path" }).getByText("Say it another way").waitFor()],
  ["debug", "Debug", (p) => p.getByRole("table", { name: "LLM calls" }).locator("tr.llm-row").first().waitFor()],
];

const HEIGHT = 844;

interface PhoneLayout {
  /** The header's height and whether its items share one row. */
  headerHeight: number;
  headerOneRow: boolean;
  /** The sessions list: whether any of it shows in the viewport. */
  sessionsInView: boolean;
  /** Tabs not wholly on screen. */
  tabsOffScreen: string[];
  /** The conversation's height. */
  chatHeight: number;
}

/** The phone layout's figures, measured in the page. */
function phoneLayout(page: Page): Promise<PhoneLayout> {
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const head = document.querySelector(".app-head").getBoundingClientRect();
    const items = [...document.querySelector(".app-head").children].filter((el) => el.getBoundingClientRect().height > 0);
    const tops = items.map((el) => el.getBoundingClientRect());
    const headerOneRow = tops.every((r) => r.top < tops[0].bottom && r.bottom > tops[0].top);
    const list = document.querySelector('nav[aria-label="Sessions"]');
    const l = list.getBoundingClientRect();
    const shown = getComputedStyle(list).visibility !== "hidden" && l.width > 0 && l.height > 0;
    const sessionsInView = shown && l.right > 0 && l.left < width && l.bottom > 0 && l.top < window.innerHeight;
    const tabsOffScreen = [...document.querySelectorAll('nav[aria-label="Session views"] a')]
      .filter((a) => { const r = a.getBoundingClientRect(); return r.left < -1 || r.right > width + 1; })
      .map((a) => a.textContent);
    const log = document.querySelector('[role="log"]');
    return {
      headerHeight: Math.round(head.height),
      headerOneRow,
      sessionsInView,
      tabsOffScreen,
      chatHeight: log ? Math.round(log.getBoundingClientRect().height) : 0,
    };
  })()`) as Promise<PhoneLayout>;
}

describe(`a phone, ${WIDTH} × ${HEIGHT}`, () => {
  it("puts the sessions in a drawer, the header in one row, every tab on screen, the chat on most of it, and a composer that grows", {
    timeout: 120_000,
  }, async () => {
    const page = await web.page({ width: WIDTH, height: HEIGHT });
    await page.goto(`${server.url}/sessions/${sessionId}`);
    await page.locator(".msg-assistant").first().waitFor();
    const layout = await phoneLayout(page);
    console.log(`[phone ${WIDTH}x${HEIGHT}] ${JSON.stringify(layout)}`);
    await screenshot(page, `phone-${WIDTH}-chat`);
    expect(layout).toMatchObject({ headerOneRow: true, sessionsInView: false, tabsOffScreen: [] });
    expect(layout.headerHeight).toBeLessThanOrEqual(56);
    expect(layout.chatHeight).toBeGreaterThanOrEqual(HEIGHT * 0.6);
    // The model box shows what is typed in it: the composer's buttons once squeezed it to nothing.
    const modelBox = await page.getByRole("form", { name: "Composer" }).getByLabel("Model").boundingBox();
    expect(modelBox?.width ?? 0).toBeGreaterThanOrEqual(64);
    expect(await seriousViolations(page)).toEqual([]);

    // The composer grows with what is typed (up to a limit), and the conversation keeps the rest.
    const box = page.getByRole("form", { name: "Composer" }).getByLabel("Message");
    const empty = (await box.boundingBox())?.height ?? 0;
    await box.fill("one\ntwo\nthree\nfour\nfive");
    await expect.poll(async () => (await box.boundingBox())?.height ?? 0).toBeGreaterThan(empty * 2);
    const grown = (await box.boundingBox())?.height ?? 0;
    await box.fill(Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n"));
    await expect.poll(async () => (await box.boundingBox())?.height ?? 0).toBeGreaterThan(grown);
    expect((await box.boundingBox())?.height ?? 0).toBeLessThanOrEqual(HEIGHT * 0.4);
    await screenshot(page, `phone-${WIDTH}-composer-grown`);
    await box.fill("");
    await expect.poll(async () => (await box.boundingBox())?.height ?? 0).toBe(empty);

    // The drawer: a header button opens the sessions over the page, and picking one closes it.
    const toggle = page.getByRole("button", { name: "Sessions", exact: true });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(async () => (await phoneLayout(page)).sessionsInView).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, `phone-${WIDTH}-drawer`);
    await page.keyboard.press("Escape");
    await expect.poll(async () => (await phoneLayout(page)).sessionsInView).toBe(false);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    await page.getByRole("navigation", { name: "Sessions" }).getByRole("link").first().click();
    await expect.poll(async () => (await phoneLayout(page)).sessionsInView).toBe(false);

    // Every tab is on screen and opens its view; the tree and the steps fit the width and pass axe.
    for (const [tab, link] of [
      ["tree", "Tree"],
      ["steps", "Steps"],
    ] as const) {
      await page.goto(`${server.url}/sessions/${sessionId}`);
      await page.locator(".msg-assistant").first().waitFor();
      await page.getByRole("navigation", { name: "Session views" }).getByRole("link", { name: link }).click();
      await page.waitForURL(`**/${tab}`);
      if (tab === "tree") await page.getByRole("tree").waitFor();
      else await page.getByTestId("step-trace").locator(".message-trace").first().waitFor();
      const fit = await measure(page);
      expect({ tab, ...fit }).toEqual({ tab, pageWidth: WIDTH, tinyText: [], sideways: [], unreachable: [] });
      expect((await phoneLayout(page)).tabsOffScreen).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `phone-${WIDTH}-${tab}`);
    }
    await page.close();
  });
});

describe(`layout at ${WIDTH} px`, () => {
  it("the goals, timeline, compare and debug tabs fit the width, with readable text and reachable controls", async () => {
    const page = await web.page({ width: WIDTH, height: 844 });
    await page.goto(`${server.url}/sessions/${sessionId}`);
    await page.locator(".msg-assistant").first().waitFor();
    const found: Record<string, Fit> = {};
    for (const [tab, link, ready] of TABS) {
      await page.getByRole("navigation", { name: "Session views" }).getByRole("link", { name: link }).click();
      await page.waitForURL(`**/${tab}`);
      await ready(page);
      found[tab] = await measure(page);
      if (tab === "dag") {
        // The plan is fitted to the canvas: all of it in view, and no goal under the zoom buttons.
        await expect.poll(() => goalCanvas(page)).toEqual({ allInView: true, underControls: [] });
      }
      if (tab === "timeline") {
        // The bars get most of the width (under their labels), not what a label column leaves over.
        const axis = await timelineAxis(page);
        expect(axis.trackWidth).toBeGreaterThanOrEqual(WIDTH * 0.75);
        expect(axis).toMatchObject({ overlappingTicks: 0, ticksOutside: 0 });
      }
      await screenshot(page, `layout-${WIDTH}-${tab}`);
    }
    console.log(`[layout ${WIDTH}] ${JSON.stringify(found)}`);
    for (const [tab, fit] of Object.entries(found)) {
      expect({ tab, ...fit }).toEqual({ tab, pageWidth: WIDTH, tinyText: [], sideways: [], unreachable: [] });
    }

    // The controls work at this width: open a span's details, the second LLM call's input, swap the branches.
    await page.goto(`${server.url}/sessions/${sessionId}/timeline`);
    await page.getByRole("list", { name: "Timeline" }).locator("button.span-row").first().click();
    await page.getByTestId("span-details").getByText("Duration").waitFor();
    expect((await measure(page)).pageWidth).toBe(WIDTH);
    await screenshot(page, `layout-${WIDTH}-timeline-details`);

    await page.goto(`${server.url}/sessions/${sessionId}/debug`);
    const show = page.getByRole("button", { name: /input and output of call/i }).first();
    await show.click();
    const input = page.getByTestId("debug-input").first();
    await input.waitFor();
    // The table is wider than the screen and scrolled to the button; the opened input is in view all the same.
    const box = await input.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= WIDTH).toBe(true);
    expect(await measure(page)).toEqual({ pageWidth: WIDTH, tinyText: [], sideways: [], unreachable: [] });
    await screenshot(page, `layout-${WIDTH}-debug-open`);

    await page.goto(`${server.url}/sessions/${sessionId}/compare`);
    const ids = (column: string) =>
      page
        .getByRole("region", { name: column })
        .locator("li")
        .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-entry-id")));
    await page.getByRole("region", { name: "Branch A path" }).locator("li").first().waitFor();
    const before = await ids("Branch A path");
    await page.getByRole("button", { name: "Swap branches A and B" }).click();
    await expect.poll(() => ids("Branch B path")).toEqual(before);
    await page.close();
  });
});
