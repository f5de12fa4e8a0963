import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { delay, routedModel, scriptedModel, taskOf, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { TimelineLane } from "../src/api/timeline-wire.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** How long the "person" takes to answer the permission ask: the wait the timeline must show apart. */
const THINK_MS = 400;

const isCompaction = (prompt: Parameters<typeof taskOf>[0]) =>
  prompt[0]?.role === "system" && String(prompt[0].content).includes("compaction agent");

/** A run that reads a guarded file (a permission ask), explores two branches in parallel, then answers. */
function model() {
  const main = scriptedModel([
    [toolCall("read", { path: ".env" }), usage({ inputTokens: 900, outputTokens: 40 })],
    [toolCall("explore", { branches: ["branch one", "branch two"] }), usage({ inputTokens: 1200, outputTokens: 30 })],
    [text("Both branches looked; the key is set."), usage({ inputTokens: 1500, outputTokens: 20 })],
  ]);
  // Each branch's first call waits a moment, as a hosted model's would: without it a branch could end
  // within the millisecond the other started (the lanes' times), and the two read as one after the other.
  const branch = (found: string) =>
    scriptedModel([
      [delay(50), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 300, outputTokens: 10 })],
      [text(found)],
    ]);
  return routedModel({
    route: (prompt) => (isCompaction(prompt) ? "compaction" : taskOf(prompt).startsWith("branch") ? taskOf(prompt) : "main"),
    models: {
      main,
      "branch one": branch("one found"),
      "branch two": branch("two found"),
      compaction: scriptedModel([
        [text("The user asked about the key; both branches agreed."), usage({ inputTokens: 2000, outputTokens: 60 })],
      ]),
    },
  });
}

describe("run timeline", () => {
  it("shows model calls, tools with their permission wait apart, two parallel explore lanes and a compaction", async () => {
    const server = await web.server({ model: model() });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    writeFileSync(join(server.cwd, "notes.txt"), "notes\n");
    const handle = server.runtime.runs.run({ prompt: "Is the key set? Look around." });
    for await (const event of handle) {
      if (event.type === "permission_request") {
        // The person reads the ask before answering (this is the wait under test, not a synchronisation).
        await new Promise((r) => setTimeout(r, THINK_MS));
        server.runtime.asks.replyPermission(event.id, "once");
      }
    }
    expect((await handle.result).status).toBe("done");
    const sessionId = handle.sessionId;
    const compacted = await server.api(`/api/sessions/${sessionId}/compact`, { json: {} });
    expect(compacted.status).toBe(200);

    const lane = (await (await server.api(`/api/sessions/${sessionId}/timeline`)).json()) as TimelineLane;
    const guarded = lane.spans.find((s) => s.kind === "tool" && s.tool === "read");
    expect(guarded?.kind === "tool" && guarded.wait_ms).toBeGreaterThanOrEqual(THINK_MS - 20);
    // The tool's own time leaves the wait out.
    expect(guarded?.duration_ms).toBeLessThan(THINK_MS);
    const subagents = lane.spans.filter((s) => s.kind === "subagent");
    expect(subagents.map((s) => s.label)).toEqual(["branch one", "branch two"]);
    expect(lane.lanes.map((l) => l.task)).toEqual(["branch one", "branch two"]);
    // Side by side: the two branches ran at the same time.
    const [a, b] = lane.lanes;
    expect(a && b && a.start < b.end && b.start < a.end).toBe(true);
    expect(lane.spans.filter((s) => s.kind === "model")).toHaveLength(3);
    expect(lane.spans.find((s) => s.kind === "compaction")).toMatchObject({ tokens: { input: 2000, output: 60 } });
    expect((await server.api("/api/sessions/nope/timeline")).status).toBe(404);

    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(`${server.url}/sessions/${sessionId}/timeline`);
    const list = page.getByRole("list", { name: "Timeline" });
    await list.getByText("branch two").waitFor();
    // Three main model calls, two in each branch; tools: the guarded read, explore, one read per branch.
    expect(await list.locator(".kind-model").count()).toBe(7);
    expect(await list.locator(".kind-tool").count()).toBe(4);
    expect(await list.locator(".kind-subagent").count()).toBe(2);
    expect(await list.locator(".kind-compaction").count()).toBe(1);
    expect(await list.getByTestId("wait-bar").count()).toBe(1);
    // Main calls 940 + 1230 + 1520, each branch's first call 310, the compaction 2060.
    expect(await page.getByTestId("timeline-totals").textContent()).toContain("6370 tokens");
    expect(await list.locator(".kind-model").first().getByTestId("span-facts").textContent()).toContain("940 tok");
    await screenshot(page, "timeline-1440");

    // Keyboard: reach the guarded tool's row and open its details.
    const toolRow = list.locator(".kind-tool").first().locator("button.span-row");
    await toolRow.focus();
    await page.keyboard.press("Enter");
    const details = page.getByTestId("span-details");
    await details.waitFor();
    expect(await details.textContent()).toContain("Waiting for permission");
    await screenshot(page, "timeline-tool-details");

    // Collapsing a branch hides its calls.
    await list.getByRole("button", { name: "Hide the calls of branch one" }).click();
    expect(await list.locator(".kind-model").count()).toBe(5);

    // A branch's details link to its sub-trace.
    await list.locator(".kind-subagent").nth(1).locator("button.span-row").click();
    await page.getByRole("link", { name: "Open the sub-trace" }).click();
    const second = subagents[1]?.kind === "subagent" ? subagents[1].sub_session_id : "";
    await page.waitForURL((url) => decodeURIComponent(url.pathname) === `/sessions/${second}`);

    // The same run's totals in the header: the three main calls and the compaction's summary call,
    // with the two branches' spending beside them; together the timeline's 6370 tokens.
    await page.goto(`${server.url}/sessions/${sessionId}`);
    const totals = page.getByTestId("session-totals");
    await totals.getByTestId("sub-agent-totals").waitFor();
    const figure = async (name: string) =>
      totals
        .locator("div", { has: page.locator(`dt:text-is("${name}")`) })
        .locator("dd")
        .textContent();
    expect(await figure("Input")).toBe(String(900 + 1200 + 1500 + 2000));
    expect(await figure("Output")).toBe(String(40 + 30 + 20 + 60));
    expect(await figure("Steps")).toBe("3 + 1 compaction");
    expect(await figure("Cost")).toBe("price unknown");
    expect(await figure("Sub-agents")).toBe("620 tokens in 2 runs");
    await page.getByText("Both branches looked; the key is set.").waitFor();
    await screenshot(page, "totals-1440");

    // The steps view: each call's tokens, and the context chart with the compaction after the last call.
    await page.getByRole("navigation", { name: "Session views" }).getByRole("link", { name: "Steps" }).click();
    const chart = page.getByTestId("context-chart");
    await chart.waitFor();
    expect(await chart.locator("figcaption").textContent()).toBe(
      "Context size per model call: peak 1500 tokens over 3 calls, 1 compaction (dashed)",
    );
    const marks = chart.getByTestId("compaction-mark");
    expect(await marks.count()).toBe(1);
    // The compaction came after every call: its mark is right of the last point.
    const markX = Number(await marks.getAttribute("x1"));
    const dots = await chart.locator("circle.dot").evaluateAll((cs) => cs.map((c) => Number(c.getAttribute("cx"))));
    expect(dots).toHaveLength(3);
    expect(markX).toBeGreaterThan(Math.max(...dots));
    const answer = page.getByRole("group", { name: "Answer to “Is the key set? Look around.”" });
    // Read once they are there: the chart above can render before the answer's steps do.
    const usages = async () => (await answer.getByTestId("step-usage").allTextContents()).map((u) => u.trim());
    await expect
      .poll(usages)
      .toEqual(["· 900 in · 40 out · price unknown", "· 1200 in · 30 out · price unknown", "· 1500 in · 20 out · price unknown"]);
    await screenshot(page, "steps-1440");
    await page.close();
  });
});
