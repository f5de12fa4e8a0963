import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "@arbor/core";
import { text, toolCall, usage } from "@arbor/testkit";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { type RichSession, writeRichSession } from "./helpers/rich-session.js";
import { chatToEnd, type WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
let server: WebServer;
let sessionId: string;
let rich: RichSession;
beforeAll(async () => {
  server = await web.fileServer({
    script: [
      [toolCall("goal", { add: "Read the notes, Answer", focus: "1" })],
      [text("Reading."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 300, outputTokens: 20 })],
      [toolCall("goal", { done: "Notes read", focus: "2" })],
      [text("The notes say **hello**."), usage({ inputTokens: 400, outputTokens: 12 })],
    ],
  });
  writeFileSync(join(server.cwd, "notes.txt"), "hello\n");
  sessionId = await chatToEnd(server, { message: "What do the notes say?", debug: "full" });
  rich = await writeRichSession(server.store);
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
  ["not-found", () => "/sessions/nosuchsession", (p) => p.getByRole("heading", { name: "Session not found" }).waitFor()],
  ["sub-trace", () => `/sessions/${rich.subs[0]?.id}`, (p) => p.getByTestId("breadcrumb").waitFor()],
];

describe("accessibility", () => {
  for (const scheme of ["light", "dark"] as const) {
    it(`every view passes axe-core with no serious or critical violations (${scheme})`, async () => {
      const page = await web.page({ width: 1440, height: 900, colorScheme: scheme });
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

describe("accessibility of the asks in the chat", () => {
  it("a pending permission card, then a plan waiting for approval, pass axe-core in both themes", async () => {
    const asks = await web.server({
      script: [
        [toolCall("read", { path: ".env" })],
        [toolCall("plan_create", { title: "Check the repo", steps: ["Read the code", "Run the tests"] })],
      ],
      config: resolveConfig([{ source: "test", value: { plan: { requireApproval: true } } }]),
    });
    writeFileSync(join(asks.cwd, ".env"), "KEY=1\n");
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(asks.url);
    await page.getByLabel("Message").fill("Read .env, then plan the work");
    await page.getByRole("button", { name: "Send" }).click();
    const found: string[] = [];
    /** Both themes of the page as it is now: the theme follows the system's, switched in place. */
    const check = async (name: string) => {
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        found.push(...(await seriousViolations(page)).map((v) => `${name} (${scheme}): ${v}`));
        await screenshot(page, `a11y-${name}-${scheme}`);
      }
    };

    const ask = page.getByRole("region", { name: /Permission request for read/ });
    await ask.getByRole("button", { name: "Allow once" }).waitFor();
    await check("chat-permission");
    await ask.getByRole("button", { name: "Allow once" }).click();

    const plan = page.getByRole("region", { name: "Plan Check the repo" });
    await plan.getByRole("button", { name: "Approve plan" }).waitFor();
    // The answered permission card stays above the plan: both cards are checked together.
    await ask.getByTestId("permission-answer").waitFor();
    await check("chat-plan");
    await plan.getByRole("button", { name: "Reject plan" }).click();
    // A rejected plan ends the run.
    await page.locator(".live-run").waitFor({ state: "detached" });
    expect(found).toEqual([]);
    await page.close();
  });
});
