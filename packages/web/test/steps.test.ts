import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { reasoning, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { addKnowledge } from "../../server/test/helpers/knowledge.js";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe("step trace", () => {
  it("shows an answer's steps with thoughts, tool calls, results, errors and durations, per-tool stats and failed calls", async () => {
    const server = await web.server({
      script: [
        [
          reasoning("Look at the notes first."),
          text("Reading both files."),
          toolCall("read", { path: "notes.txt" }),
          toolCall("read", { path: "missing.txt" }),
        ],
        [text("The notes say hello; the other file does not exist.")],
      ],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "hello from the notes\n");
    const sessionId = await chatToEnd(server, { message: "What do the files say?" });

    const page = await web.page({ width: 1280, height: 720 });
    await page.goto(`${server.url}/sessions/${sessionId}/steps`);
    const answer = page.getByRole("group", { name: "Answer to “What do the files say?”" });
    await answer.waitFor();
    const step1 = answer.getByRole("region", { name: "Step 1" });
    await step1.waitFor();
    expect(await step1.locator(".step-thought").textContent()).toContain("Reading both files.");

    const calls = step1.getByRole("region", { name: "Tool call read" });
    expect(await calls.count()).toBe(2);
    const ok = calls.nth(0);
    expect(await ok.getByTestId("tool-status").textContent()).toBe("ok");
    expect(await ok.locator(".tool-args").textContent()).toContain("notes.txt");
    expect(await ok.locator(".tool-output").textContent()).toContain("hello from the notes");
    expect(await ok.getByTestId("tool-duration").textContent()).toMatch(/\d+ ms|s$/);
    const bad = calls.nth(1);
    expect(await bad.getByTestId("tool-status").textContent()).toBe("failed");
    expect(await bad.locator(".tool-error").textContent()).not.toBe("");
    // The second step is the final answer, with no tool calls.
    await answer.getByRole("region", { name: "Step 2" }).waitFor();
    expect(await answer.locator(".final-answer").textContent()).toContain("The notes say hello");

    // Per-tool stats: two read calls, one failed.
    const row = page.getByRole("table", { name: "Per-tool stats" }).locator('tr[data-tool="read"]');
    await row.waitFor();
    expect(await row.locator("td").first().textContent()).toBe("2");
    expect(await row.getByTestId("failures").textContent()).toBe("1");
    await screenshot(page, "steps-answer");

    // The keyboard reaches the switch; only the failed call is listed.
    await page.getByRole("button", { name: "Refresh" }).focus();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    const failed = page.getByRole("region", { name: "Failed tool calls" });
    await failed.getByRole("region", { name: "Tool call read" }).waitFor();
    expect(await failed.getByRole("region", { name: "Tool call read" }).count()).toBe(1);
    expect(await failed.locator(".tool-args").textContent()).toContain("missing.txt");
    await screenshot(page, "steps-failed");
    await page.close();
  });

  it("lists the knowledge-base passages an answer used", async () => {
    const server = await web.server({
      script: [
        [toolCall("search_knowledge_base", { query: "visitor parking" }, { id: "kb1" })],
        [text("Park on level 2 (garage.md).")],
      ],
    });
    const doc = await addKnowledge(server, "garage.md", "# Garage\n\nVisitors park on level 2.\n");
    const body = await (await server.api("/api/chat", { json: { message: "Where do I park?" } })).text();
    const sessionId = /"session_id":"([^"]+)"/.exec(body)?.[1] as string;
    const page = await web.page({ width: 1280, height: 720 });
    await page.goto(`${server.url}/sessions/${sessionId}/steps`);
    const refs = page.getByRole("region", { name: "Knowledge references" });
    await refs.waitFor();
    expect(await refs.textContent()).toContain(doc);
    expect(await refs.textContent()).toContain("lines 1-3");
    expect(await refs.textContent()).toContain("Visitors park on level 2.");
  });
});
