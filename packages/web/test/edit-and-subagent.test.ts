import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Snapshot } from "@arbor/core";
import { routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("an edit's diff in the chat", () => {
  it("numbers its lines as the file does and shows three lines of context around the change", async () => {
    const server = await web.server({
      script: [[toolCall("edit", { path: "notes.txt", oldString: "line 10", newString: "line ten" })], [text("Edited.")]],
    });
    writeFileSync(join(server.cwd, "notes.txt"), `${lines(20)}\n`);
    const sessionId = await chatToEnd(server, { message: "Spell out line 10" });
    for (const width of [1440, 390]) {
      const page = await web.page({ width, height: 900 });
      await page.goto(`${server.url}/sessions/${sessionId}`);
      const diff = page.getByRole("figure", { name: "Edit of notes.txt" });
      await diff.waitFor();
      expect(await diff.locator(".diff-hunk").allTextContents()).toEqual(["@@ -7,7 +7,7 @@\n"]);
      expect(await diff.locator(".diff-ctx").allTextContents()).toEqual(
        ["line 7", "line 8", "line 9", "line 11", "line 12", "line 13"].map((l) => ` ${l}\n`),
      );
      // The gutters: the removed line is line 10 of the old file, the added one line 10 of the new.
      expect(await diff.locator(".diff-del").getAttribute("data-old")).toBe("10");
      expect(await diff.locator(".diff-add .diff-text").getAttribute("data-new")).toBe("10");
      expect(await diff.locator(".diff-ctx").first().getAttribute("data-old")).toBe("7");
      await diff.scrollIntoViewIfNeeded();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `edit-diff-${width}`);
      await page.close();
    }
  }, 90_000);
});

/** A plan with one goal, explored by one branch that reads a file and reports. */
function exploreModel() {
  const main = scriptedModel([
    [toolCall("goal", { add: "Look around" })],
    [toolCall("explore", { branches: ["branch one"] })],
    [text("The branch looked.")],
  ]);
  const branch = scriptedModel([[toolCall("read", { path: "notes.txt" })], [text("**one** found")]]);
  return routedModel({
    route: (prompt) => (taskOf(prompt).startsWith("branch") ? "branch" : "main"),
    models: { main, branch },
  });
}

describe("a sub-agent's result", () => {
  it("shows what its result kept (tools, evidence, timeline, summary source) and the snapshot projects it by batch", async () => {
    const server = await web.server({ model: exploreModel() });
    writeFileSync(join(server.cwd, "notes.txt"), "notes\n");
    const sessionId = await chatToEnd(server, { message: "Explore" });

    const snap = (await (await server.api(`/api/sessions/${sessionId}`)).json()) as Snapshot;
    const [batchId] = Object.keys(snap.subagentRuntimeByBatchId);
    const batch = snap.subagentRuntimeByBatchId[batchId as string];
    expect(batch).toMatchObject({ mode: "explore", tasks: [{ task: "branch one" }] });
    expect(batch?.results[0]).toMatchObject({
      status: "completed",
      evidenceSummaries: 1,
      diagnostics: { selectedSource: "final_text", inputSources: ["final_text", "last_assistant_message", "status"] },
    });
    expect(snap.toolRuntimeRoutesByBatchId[batchId as string]).toEqual([
      expect.objectContaining({ tool: "read", calls: 1, errors: 0 }),
    ]);
    // The runtime context carries the goal tree: the plan, and the explore call it grew.
    const goals = snap.runtimeContext.goalTree?.goals ?? [];
    expect(goals[0]?.description).toBe("Look around");
    expect(goals.some((g) => g.type === "agent_call" && g.subTraceIds?.length === 1)).toBe(true);

    for (const width of [1440, 390]) {
      const page = await web.page({ width, height: 900 });
      await page.goto(`${server.url}/sessions/${sessionId}`);
      const card = page.getByRole("region", { name: "Sub-agent result" });
      await card.waitFor();
      expect(await card.getByTestId("subagent-source").textContent()).toBe(
        "Summary from its final answer; the branch offered its final answer, its last message, its status.",
      );
      const details = card.getByTestId("subagent-details");
      expect(await details.locator("summary").textContent()).toMatch(/^Tools: read × 1 · 1 evidence · \d+ events$/);
      await details.locator("summary").click();
      expect(await details.locator("table tbody td").first().textContent()).toBe("read");
      expect(await details.locator(".subagent-evidence li").first().textContent()).toContain("notes");
      expect(await details.locator(".subagent-events li").allTextContents()).toContain("read started");
      await card.scrollIntoViewIfNeeded();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `subagent-card-${width}`);
      await page.close();
    }
  }, 90_000);
});
