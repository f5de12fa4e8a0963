import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { delay, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** The idle time between the two runs: what must not squeeze the bars of either. */
const IDLE_MS = 1500;

describe("a timeline of several runs", () => {
  it("shows the latest run on its own axis, with a picker for the others and for all of them", async () => {
    const server = await web.server({
      // The second run's one model call takes a moment, so its bar has a length to fill the axis with
      // (an instant call is a 0 ms span on a 1 ms axis).
      script: [[toolCall("read", { path: "notes.txt" })], [text("First look done.")], [delay(30), text("Second answer.")]],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "notes\n");
    const first = server.runtime.runs.run({ prompt: "Look at the notes" });
    expect((await first.result).status).toBe("done");
    // The user comes back later (this idle time is the subject of the test, not a synchronisation).
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const second = server.runtime.runs.run({ prompt: "And now?", sessionId: first.sessionId });
    expect((await second.result).status).toBe("done");

    for (const width of [1440, 390]) {
      const page = await web.page({ width, height: 900 });
      await page.goto(`${server.url}/sessions/${first.sessionId}/timeline`);
      const list = page.getByRole("list", { name: "Timeline" });
      const picker = page.getByLabel("Run");
      await picker.waitFor();
      expect(await picker.locator("option").allTextContents()).toEqual([
        expect.stringMatching(/^1 of 2: Look at the notes · /),
        expect.stringMatching(/^2 of 2: And now\? · /),
        "All runs on one axis",
      ]);
      // By default the latest run: its one model call fills its own axis, whatever idle time came before.
      await expect.poll(() => list.locator(".timeline-row").count()).toBe(1);
      const bar = list.locator(".kind-model .bar.model");
      expect(Number.parseFloat((await bar.getAttribute("style"))?.match(/width: ([\d.]+)%/)?.[1] ?? "0")).toBeGreaterThan(90);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `timeline-runs-latest-${width}`);

      await picker.selectOption({ label: (await picker.locator("option").first().textContent()) as string });
      // The first run: two model calls and the read.
      await expect.poll(() => list.locator(".timeline-row").count()).toBe(3);
      await picker.selectOption("all");
      await expect.poll(() => list.locator(".timeline-row").count()).toBe(4);
      await screenshot(page, `timeline-runs-all-${width}`);
      await page.close();
    }
  }, 90_000);
});
