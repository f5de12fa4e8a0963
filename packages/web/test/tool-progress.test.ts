import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineTool } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/**
 * A command that writes its output in three bursts, each after the test opens a gate (a named pipe
 * the command reads from), so the test decides when the next lines come and can look at the card
 * while the command is still running.
 */
const COMMAND = [
  'for i in 1 2 3; do echo "building part $i"; done',
  "read go < gate1",
  'for i in 4 5 6 7 8 9 10 11 12 13 14; do echo "building part $i"; done',
  "read go < gate2",
  'echo "all 14 parts built"',
].join("; ");

describe("live tool progress in the chat", () => {
  it("a running bash call shows its output lines as they are written, and the finished card what the result kept", async () => {
    const server = await web.server({
      script: [
        [text("Building it now.", { chunks: 2 }), toolCall("bash", { command: COMMAND, timeout: 30_000 })],
        [text("The build is done.")],
      ],
    });
    const cwd = server.cwd;
    execFileSync("mkfifo", [join(cwd, "gate1"), join(cwd, "gate2")]);
    const page = await web.page({ width: 1280, height: 800 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Build all the parts");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/\/sessions\/[^/]+$/);

    const card = page.getByRole("region", { name: "Tool call bash" });
    const tail = card.getByRole("region", { name: "bash output so far" });
    // The first burst is on screen while the command waits at the first gate.
    await tail.getByText("building part 3").waitFor();
    expect(await card.getByTestId("tool-status").textContent()).toBe("running");
    expect(await tail.textContent()).toBe("building part 1\nbuilding part 2\nbuilding part 3");
    expect(await card.getByTestId("tool-progress").textContent()).toContain("3 lines so far");

    await writeFile(join(cwd, "gate1"), "go\n");
    // The second burst arrives in the same card, still running: more lines than the tail's height,
    // so it scrolls and keeps the newest line in view.
    await tail.getByText("building part 14").waitFor();
    expect(await card.getByTestId("tool-status").textContent()).toBe("running");
    expect(await tail.textContent()).toContain("building part 1\n");
    const view = await tail.evaluate((el) => ({ top: el.scrollTop, height: el.clientHeight, full: el.scrollHeight }));
    expect(view.full).toBeGreaterThan(view.height);
    expect(view.top + view.height).toBeGreaterThanOrEqual(view.full - 1);
    expect(await card.getByTestId("tool-progress").textContent()).toContain("14 lines so far");
    // The streaming view stays accessible, the scrolling tail included.
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "tool-progress-running");

    await writeFile(join(cwd, "gate2"), "go\n");
    await page.getByText("The build is done.").waitFor();
    // Once the run is done the card comes from the stored session: no tail, and the line count the
    // result kept from the progress reports.
    await page.locator(".live-run").waitFor({ state: "detached" });
    const done = page.getByRole("region", { name: "Tool call bash" });
    expect(await done.getByTestId("tool-status").textContent()).toBe("done");
    expect(await done.getByTestId("tool-tail").count()).toBe(0);
    expect(await done.getByTestId("tool-note").textContent()).toBe("15 lines of output");
    await done.locator("summary").click();
    expect(await done.locator(".tool-output").textContent()).toContain("all 14 parts built");
    await screenshot(page, "tool-progress-done");
    await page.close();
  });
});

describe("progress of other tools", () => {
  it("shows a running call's message and percentage, and a failed command's exit code once it ends", async () => {
    // A tool reporting as an MCP server's progress notifications do, held at 3 of 8 until released.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A failing check must not leave the call held, or closing the server would wait on it.
    onTestFinished(() => release());
    const indexDocs = defineTool({
      name: "index_docs",
      description: "Indexes the docs.",
      input: z.object({}),
      async execute(_input, ctx) {
        ctx.metadata({ title: "Indexing the docs folder", metadata: { progress: 3, total: 8 } });
        await held;
        ctx.metadata({ title: "Indexing the docs folder", metadata: { progress: 8, total: 8 } });
        return { output: "8 documents indexed" };
      },
    });
    const server = await web.server({
      tools: [indexDocs],
      script: [
        [toolCall("index_docs", {}), toolCall("bash", { command: "echo checking; exit 3" })],
        [text("Indexed; the check failed.")],
      ],
    });
    // In the dark theme, so the progress bar and the notes are checked in both (the test above is light).
    const page = await web.page({ width: 1280, height: 800, colorScheme: "dark" });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Index the docs and check");
    await page.getByRole("button", { name: "Send" }).click();

    const card = page.getByRole("region", { name: "Tool call index_docs" });
    const progress = card.getByTestId("tool-progress");
    await progress.getByText("Indexing the docs folder").waitFor();
    expect(await card.getByTestId("tool-status").textContent()).toBe("running");
    expect(await progress.textContent()).toBe("Indexing the docs folder — 3/8 (38%)");
    expect(await card.getByRole("progressbar", { name: "index_docs progress" }).getAttribute("value")).toBe("0.375");
    // The command beside it has ended; its card says how, before the run's result is read back.
    const liveBash = page.getByRole("region", { name: "Tool call bash" });
    await liveBash.getByTestId("tool-note").waitFor();
    expect(await liveBash.getByTestId("tool-note").textContent()).toBe("1 line of output · exit 3");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "tool-progress-percentage-dark");

    release();
    await page.getByText("Indexed; the check failed.").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });
    const done = page.getByRole("region", { name: "Tool call index_docs" });
    expect(await done.getByTestId("tool-note").textContent()).toBe("8/8");
    const bash = page.getByRole("region", { name: "Tool call bash" });
    expect(await bash.getByTestId("tool-note").textContent()).toBe("1 line of output · exit 3");
    await page.close();
  });
});
