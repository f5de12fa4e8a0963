import type { SessionExport } from "@arbor/core";
import { beforeAll, describe, expect, it } from "vitest";
import { allConversions } from "../../core/test/interop/fixtures.js";
import { screenshot } from "./helpers/browser.js";
import type { WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const conversions = allConversions;

function sideBranches(s: SessionExport): number {
  const kids = new Map<string, number>();
  for (const e of s.entries) if (e.parentId !== null) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
  return [...kids.values()].reduce((n, k) => n + (k > 1 ? k - 1 : 0), 0);
}

const web = browserSuite();
let server: WebServer;
const sessions = conversions().flatMap((c) => c.sessions);
beforeAll(async () => {
  server = await web.fileServer();
  for (const s of sessions) await server.store.importSession(s);
});

describe("sessions imported from other agents in the inspector", () => {
  it("every one shows its whole tree, and its conversation, without a page error", { timeout: 240_000 }, async () => {
    const page = await web.page({ width: 1440, height: 900 });
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    for (const s of sessions) {
      const id = encodeURIComponent(s.session.id);
      await page.goto(`${server.url}/sessions/${id}/tree`);
      const stats = page.getByTestId("tree-stats");
      await stats.waitFor();
      const branches = sideBranches(s);
      await expect
        .poll(() => stats.textContent(), { timeout: 15_000 })
        .toContain(`${s.entries.length} entries · ${branches} side branch${branches === 1 ? "" : "es"}`);
      await page.locator('.tree-row[aria-current="location"]').waitFor();
      await page.goto(`${server.url}/sessions/${id}`);
      await page.locator("main").first().waitFor();
    }
    await page.goto(`${server.url}/sessions/${encodeURIComponent("claude-code-e9fb405b-169f-40eb-9396-7e75076f045d")}/tree`);
    await page.getByTestId("tree-stats").waitFor();
    await screenshot(page, "imported-claude-code-tree");
    expect(errors).toEqual([]);
  });
});
