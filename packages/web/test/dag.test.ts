import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** Buttons on the canvas may be panned out of view; the keyboard reaches them anyway (and must). */
const press = async (button: { focus(): Promise<void>; press(key: string): Promise<void> }) => {
  await button.focus();
  await button.press("Enter");
};

const goal = (input: Record<string, string>) => [toolCall("goal", input)];

/** One run through the real runtime: a plan, sub-goals, a delegated sub-trace with its own plan, an abandoned goal. */
const SCRIPT = [
  goal({ add: "Analyse the code, Implement the feature, Try a shortcut" }),
  goal({ focus: "1" }),
  goal({ done: "The parser lives in parse.ts" }),
  goal({ focus: "2" }),
  goal({ add: "Design the API, Write the code", under: "2" }),
  goal({ focus: "2.1" }),
  goal({ done: "API designed" }),
  goal({ focus: "2.2" }),
  [toolCall("delegate", { task: "Write the code for the new endpoint" })],
  // The delegated sub-trace plays the next steps.
  goal({ add: "Sub design, Sub code" }),
  [text("Sub-trace finished the endpoint.")],
  goal({ done: "Code written by the sub-agent" }),
  goal({ focus: "3" }),
  goal({ abandon: "Not worth it" }),
  [text("All done.")],
];

describe("goal DAG", () => {
  it("shows the plan collapsed, expands sub-goals and a sub-trace, greys the abandoned goal and lists an edge's messages", async () => {
    const server = await web.server({ script: SCRIPT });
    const sessionId = await chatToEnd(server, { message: "Build the feature" });

    const page = await web.page({ width: 1920, height: 1080 });
    await page.goto(`${server.url}/sessions/${sessionId}/dag`);
    const canvas = page.getByTestId("dag-canvas");
    await canvas.getByText("Analyse the code").waitFor();
    await page.getByTestId("live-state").getByText("Live").waitFor();
    // Collapsed: top-level goals only.
    expect(await canvas.getByText("Design the API").count()).toBe(0);
    expect(await page.locator(".goal-node.abandoned", { hasText: "Try a shortcut" }).count()).toBe(1);
    await screenshot(page, "dag-collapsed");

    // Expand goal 2's edge: its sub-goals take its place (the seed's [2] → [2.1], [2.2]), and its own
    // messages (self stats) and collapse control ride on the edge into 2.1.
    await press(page.getByRole("button", { name: "Expand 2 Implement the feature" }));
    await canvas.getByText("Design the API").waitFor();
    await canvas.getByText("Write the code").waitFor();
    await page.locator('.edge-group[data-stats-kind="self"]').first().waitFor();
    expect(await canvas.locator(".goal-node", { hasText: "Implement the feature" }).count()).toBe(0);
    await page.getByRole("button", { name: "Collapse 2 Implement the feature" }).waitFor();

    // 2.2 called delegate: an agent_call goal fans out into its sub-trace, whose goals load on demand.
    await press(page.getByRole("button", { name: "Expand 2.2 Write the code" }));
    const subNode = page.locator(".goal-node.kind-subtrace");
    await subNode.waitFor();
    await press(page.getByRole("button", { name: /Expand sub-trace/ }));
    await canvas.getByText("Sub design").waitFor();
    await canvas.getByText("Sub code").waitFor();
    await screenshot(page, "dag-expanded-1920");
    // The sub-trace is marked with a bundled icon (an SVG), not a font glyph that may not exist.
    expect(await subNode.locator("svg").count()).toBeGreaterThan(0);
    expect(await subNode.textContent()).not.toContain("⑂");

    // An edge's label lists that goal's messages.
    await press(page.getByRole("button", { name: "Messages of 1 Analyse the code" }));
    const panel = page.getByRole("region", { name: "Edge messages" });
    await panel.locator("li").first().waitFor();
    expect(await panel.textContent()).toContain("goal");

    // The live events say what changed, not just their type.
    await page.getByText(/Live events/).click();
    const log = page.getByTestId("event-log");
    expect(await log.locator('[data-event="goal_added"]').first().textContent()).toMatch(/Goal 1 .Analyse the code. added/);
    expect(await log.textContent()).toMatch(/Goal 1 is now completed/);
    expect(await log.textContent()).toMatch(/tool goal returned under goal 1/);
    expect(await log.textContent()).not.toMatch(/#\d+ message_added/);
    await page.close();
  });

  it("keeps labels readable on a narrow screen (the plan flows down) and re-fits after each expand and collapse", async () => {
    const server = await web.server({ script: SCRIPT });
    const res = await server.api("/api/chat", { json: { message: "Build the feature" } });
    const sessionId = /"session_id":"([^"]+)"/.exec(await res.text())?.[1] as string;
    const page = await web.page({ width: 1024, height: 1200 });
    await page.goto(`${server.url}/sessions/${sessionId}/dag`);
    const canvas = page.getByTestId("dag-canvas");
    await canvas.getByText("Analyse the code").waitFor();
    // Run in the page (as text: the tests are compiled without the DOM's types).
    /** The smallest rendered font of the graph's words (font size times the view's zoom). */
    const smallestText = () =>
      page.evaluate(`(() => {
        const viewport = document.querySelector(".react-flow__viewport");
        const zoom = new DOMMatrixReadOnly(getComputedStyle(viewport).transform).a;
        const sizes = [...document.querySelectorAll(".goal-title, .edge-label .edge-stats")].map(
          (el) => Number.parseFloat(getComputedStyle(el).fontSize) * zoom,
        );
        return Math.min(...sizes);
      })()`) as Promise<number>;
    /** Every node inside the canvas's box (a fit that missed new nodes leaves them cut off). */
    const allInView = () =>
      page.evaluate(`(() => {
        const box = document.querySelector('[data-testid="dag-canvas"]').getBoundingClientRect();
        return [...document.querySelectorAll(".goal-node")].every((n) => {
          const r = n.getBoundingClientRect();
          return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
        });
      })()`) as Promise<boolean>;
    const nodes = 'document.querySelectorAll(".goal-node").length';
    await page.waitForFunction(`${nodes} >= 4`);
    expect(await smallestText()).toBeGreaterThanOrEqual(10);
    // The narrow canvas lays the plan out top down, and it fits.
    await expect.poll(allInView).toBe(true);
    await screenshot(page, "dag-collapsed-1024");

    await press(page.getByRole("button", { name: "Expand 2 Implement the feature" }));
    await canvas.getByText("Design the API").waitFor();
    // The view fits again once the new nodes are measured: none is left cut off. Goal 2's node gave
    // way to its two sub-goals: start, 1, 2.1, 2.2 and the abandoned goal.
    await page.waitForFunction(`${nodes} >= 5`);
    await expect.poll(allInView).toBe(true);
    expect(await smallestText()).toBeGreaterThanOrEqual(10);
    await screenshot(page, "dag-expanded-1024");

    await press(page.getByRole("button", { name: "Collapse 2 Implement the feature" }));
    await page.waitForFunction(`${nodes} < 5`);
    await expect.poll(allInView).toBe(true);
    await page.close();
  });

  it("expands a goal in place of its node at 1440 and 390 px", async () => {
    const server = await web.server({ script: SCRIPT });
    const sessionId = await chatToEnd(server, { message: "Build the feature" });
    for (const [width, height] of [
      [1440, 900],
      [390, 844],
    ] as const) {
      const page = await web.page({ width, height });
      await page.goto(`${server.url}/sessions/${sessionId}/dag`);
      const canvas = page.getByTestId("dag-canvas");
      await canvas.getByText("Analyse the code").waitFor();
      await press(page.getByRole("button", { name: "Expand 2 Implement the feature" }));
      await canvas.getByText("Design the API").waitFor();
      // [2] gave way to [2.1] and [2.2]; the chain goes on from 2.2 to 3.
      expect(await canvas.locator(".goal-node", { hasText: "Implement the feature" }).count()).toBe(0);
      await page.getByRole("button", { name: "Collapse 2 Implement the feature" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `dag-expanded-${width}`);
      await page.close();
    }
  }, 90_000);
});
