import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall, usage } from "@arbor/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { launchBrowser, openPage, screenshot } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/server.js";

let browser: Browser;
let server: WebServer;
let sessionId: string;
beforeAll(async () => {
  browser = await launchBrowser();
  server = await startWebServer({
    script: [
      [toolCall("goal", { add: "Read the notes, Answer", focus: "1" })],
      [text("Reading."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 300, outputTokens: 20 })],
      [toolCall("goal", { done: "Notes read", focus: "2" })],
      [text("The notes say **hello**."), usage({ inputTokens: 400, outputTokens: 12 })],
    ],
  });
  writeFileSync(join(server.cwd, "notes.txt"), "hello\n");
  const res = await server.api("/api/chat", { json: { message: "What do the notes say?", debug: "full" } });
  const body = await res.text();
  expect(body).toContain('"type":"done"');
  sessionId = /"session_id":"([^"]+)"/.exec(body)?.[1] as string;
});
afterAll(async () => {
  await server?.close();
  await browser?.close();
});

/** Each view, with what to wait for before checking it. */
const VIEWS: Array<[name: string, path: () => string, ready: (page: Page) => Promise<unknown>]> = [
  ["home", () => "/", (p) => p.getByLabel("Message").waitFor()],
  ["chat", () => `/sessions/${sessionId}`, (p) => p.getByText("The notes say").first().waitFor()],
  ["tree", () => `/sessions/${sessionId}/tree`, (p) => p.getByRole("tree").first().waitFor()],
  ["goals", () => `/sessions/${sessionId}/dag`, (p) => p.getByTestId("dag-canvas").getByText("Read the notes").waitFor()],
  ["timeline", () => `/sessions/${sessionId}/timeline`, (p) => p.getByRole("list", { name: "Timeline" }).waitFor()],
  ["steps", () => `/sessions/${sessionId}/steps`, (p) => p.getByText("What do the notes say?").first().waitFor()],
  ["debug", () => `/sessions/${sessionId}/debug`, (p) => p.getByRole("table", { name: "LLM calls" }).waitFor()],
  ["compare", () => `/sessions/${sessionId}/compare`, (p) => p.getByText("This session has one branch").waitFor()],
];

describe("accessibility", () => {
  for (const scheme of ["light", "dark"] as const) {
    it(`every view passes axe-core with no serious or critical violations (${scheme})`, async () => {
      const page = await openPage(browser, { width: 1440, height: 900, colorScheme: scheme });
      const found: string[] = [];
      for (const [name, path, ready] of VIEWS) {
        await page.goto(`${server.url}${path()}`);
        await ready(page);
        found.push(...(await seriousViolations(page)).map((v) => `${name}: ${v}`));
        if (scheme === "dark") await screenshot(page, `a11y-${name}-dark`);
      }
      expect(found).toEqual([]);
      await page.close();
    });
  }
});
