import type { Snapshot } from "@arbor/core";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd, type WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

const chat = chatToEnd;
const snapshot = async (s: WebServer, id: string) => (await (await s.api(`/api/sessions/${id}`)).json()) as Snapshot;

describe("compare branches", () => {
  it("shows two branches side by side and brings one's conclusions into the other as a branch summary", async () => {
    const server = await web.server({
      script: [
        [text("Ready to try both."), usage({ inputTokens: 100, outputTokens: 5 })],
        [text("Looking."), toolCall("list", { path: "." }), usage({ inputTokens: 200, outputTokens: 10 })],
        [text("Approach A works: stream the parser."), usage({ inputTokens: 300, outputTokens: 12 })],
        [text("Approach B is too slow."), usage({ inputTokens: 150, outputTokens: 8 })],
        // The compaction model's summary of branch A.
        [text("Branch A found that streaming the parser works.")],
      ],
    });
    const id = await chat(server, { message: "Start" });
    const ready = (await snapshot(server, id)).activePath[1] as string;
    await chat(server, { message: "Try approach A", session_id: id });
    const aLeaf = (await snapshot(server, id)).session.leafEntryId as string;
    await chat(server, { message: "Try approach B", session_id: id, from_entry_id: ready });
    const bLeaf = (await snapshot(server, id)).session.leafEntryId as string;

    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(`${server.url}/sessions/${id}/compare`);
    // Keyboard: pick the branches in the two selects.
    const pickA = page.getByRole("combobox", { name: "Branch A" });
    await pickA.focus();
    await pickA.selectOption(aLeaf);
    await page.getByRole("combobox", { name: "Branch B" }).selectOption(bLeaf);
    const colA = page.getByRole("region", { name: "Branch A path" });
    const colB = page.getByRole("region", { name: "Branch B path" });
    await colA.getByText("Try approach A").waitFor();
    expect(await colA.textContent()).toContain("→ list");
    expect(await colA.textContent()).not.toContain("Try approach B");
    expect(await colB.textContent()).toContain("Approach B is too slow.");
    expect(await colA.getByTestId("compare-totals").textContent()).toBe("4 messages · 1 tool calls · 522 tokens");
    expect(await colB.getByTestId("compare-totals").textContent()).toBe("2 messages · 0 tool calls · 158 tokens");
    expect(await page.getByTestId("compare-shared").textContent()).toContain("Both share 2 entries");
    await screenshot(page, "compare-1440");
    expect(await seriousViolations(page)).toEqual([]);

    const bring = page.getByRole("button", { name: "Bring A's conclusions into B" });
    await bring.focus();
    await page.keyboard.press("Enter");
    await page
      .getByRole("status")
      .getByText(/branch summary under branch B/)
      .waitFor();
    const after = await snapshot(server, id);
    const summary = after.entries.at(-1);
    expect(summary).toMatchObject({ type: "branch_summary", parentId: bLeaf, fromId: aLeaf });
    expect(summary?.type === "branch_summary" && summary.summary).toContain("streaming the parser works");
    expect(after.session.leafEntryId).toBe(summary?.id);
    // Branch B is now shown from its new end, the summary.
    expect(await page.getByRole("combobox", { name: "Branch B" }).inputValue()).toBe(summary?.id);
    await colB.getByText(/Branch summary: Branch A found/).waitFor();
    await screenshot(page, "compare-brought-back");
    await page.close();
  });
});
