import { text, toolCall } from "@arbor/testkit";
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
    server = await startWebServer({ script: SCRIPT });
    const res = await server.api("/api/chat", { json: { message: "Build the feature" } });
    const body = await res.text();
    expect(body).toContain('"type":"done"');
    const sessionId = /"session_id":"([^"]+)"/.exec(body)?.[1] as string;

    const page = await openPage(browser, { width: 1920, height: 1080 });
    await page.goto(`${server.url}/sessions/${sessionId}/dag`);
    const canvas = page.getByTestId("dag-canvas");
    await canvas.getByText("Analyse the code").waitFor();
    await page.getByTestId("live-state").getByText("Live").waitFor();
    // Collapsed: top-level goals only.
    expect(await canvas.getByText("Design the API").count()).toBe(0);
    expect(await page.locator(".goal-node.abandoned", { hasText: "Try a shortcut" }).count()).toBe(1);
    await screenshot(page, "dag-collapsed");

    // Expand goal 2's edge: its sub-goals appear, and its own edge switches to self stats.
    await press(page.getByRole("button", { name: "Expand 2 Implement the feature" }));
    await canvas.getByText("Design the API").waitFor();
    await canvas.getByText("Write the code").waitFor();
    await page.locator('.edge-label[data-stats-kind="self"]').first().waitFor();

    // 2.2 called delegate: an agent_call goal fans out into its sub-trace, whose goals load on demand.
    await press(page.getByRole("button", { name: "Expand 2.2 Write the code" }));
    const subNode = page.locator(".goal-node.kind-subtrace");
    await subNode.waitFor();
    await press(page.getByRole("button", { name: /Expand sub-trace/ }));
    await canvas.getByText("Sub design").waitFor();
    await canvas.getByText("Sub code").waitFor();
    await screenshot(page, "dag-expanded-1920");

    // An edge's label lists that goal's messages.
    await press(page.getByRole("button", { name: "Messages of 1 Analyse the code" }));
    const panel = page.getByRole("region", { name: "Edge messages" });
    await panel.locator("li").first().waitFor();
    expect(await panel.textContent()).toContain("goal");
    await page.close();
  });
});
