import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { chatToEnd, type WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

interface Rec {
  kind: string;
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  duration_ms?: number;
  input?: string;
  output?: string;
}

const run = (s: WebServer, message: string, debug?: string) => chatToEnd(s, { message, ...(debug ? { debug } : {}) });

describe("debug panel", () => {
  it("lists LLM calls with model, tokens and duration, and whole inputs and outputs at the full level", async () => {
    const server = await web.server({
      script: [
        [text("Reading it."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 1234, outputTokens: 56 })],
        [text("The notes say hello."), usage({ inputTokens: 1400, outputTokens: 12 })],
        [text("A plain answer.")],
      ],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "hello from the notes\n");
    const sessionId = await run(server, "What do the notes say?", "full");
    const records = ((await (await server.api(`/api/sessions/${sessionId}/debug`)).json()) as { records: Rec[] }).records;
    const llm = records.filter((r) => r.kind === "llm");
    expect(llm.length).toBe(2);

    const page = await web.page({ width: 1920, height: 1080, colorScheme: "dark" });
    await page.goto(`${server.url}/sessions/${sessionId}/debug`);
    const table = page.getByRole("table", { name: "LLM calls" });
    await table.locator("tr.llm-row").nth(1).waitFor();
    expect(await table.locator("tr.llm-row").count()).toBe(2);
    const first = table.locator("tr.llm-row").first();
    expect(await first.getByTestId("model").textContent()).toBe(llm[0]?.model);
    expect(llm[0]?.input_tokens).toBe(1234);
    expect(await first.getByTestId("input-tokens").textContent()).toBe("1234");
    expect(await first.getByTestId("output-tokens").textContent()).toBe("56");
    expect(await page.getByTestId("llm-totals").textContent()).toContain("2702 tokens");
    expect(await first.getByTestId("duration").textContent()).toMatch(/ms|s$/);
    expect(await page.getByTestId("debug-levels").textContent()).toContain("full");
    // The tool call is recorded too.
    await page.getByRole("table", { name: "Tool calls" }).getByText("read", { exact: true }).waitFor();

    // Keyboard: open the first call's input and output.
    const show = first.getByRole("button", { name: /input and output of call/i });
    await show.focus();
    await page.keyboard.press("Enter");
    expect(await show.getAttribute("aria-expanded")).toBe("true");
    const input = page.getByTestId("debug-input").first();
    await input.waitFor();
    expect(await input.textContent()).toContain("What do the notes say?");
    expect(await page.getByTestId("debug-output").first().textContent()).toContain("Reading it.");
    await screenshot(page, "debug-full-dark-1920");

    // A run without debug has no records: the panel says how to get them.
    const plain = await run(server, "Plain question");
    await page.goto(`${server.url}/sessions/${plain}/debug`);
    await page.getByText("No debug records").waitFor();
    await page.close();
  });

  it("the composer's debug picker turns debug on for the runs it starts, and keeps the choice across a reload", async () => {
    const server = await web.server({
      script: [[text("Reading it."), toolCall("read", { path: "notes.txt" })], [text("Hello, says the file.")]],
    });
    writeFileSync(join(server.cwd, "notes.txt"), "hello\n");
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(server.url);
    const picker = page.getByLabel("Debug");
    expect(await picker.inputValue()).toBe("off");
    // Keyboard only: focus the picker and choose "standard".
    await picker.focus();
    await picker.selectOption("standard");
    await page.reload();
    expect(await page.getByLabel("Debug").inputValue()).toBe("standard");
    await screenshot(page, "composer-debug-picker");
    await page.getByLabel("Message").fill("What do the notes say?");
    await page.getByLabel("Message").press("Control+Enter");
    await page.waitForURL(/\/sessions\//);
    await page.getByText("Hello, says the file.").waitFor();
    const sessionId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2] as string);
    const records = ((await (await server.api(`/api/sessions/${sessionId}/debug`)).json()) as { records: Rec[] }).records;
    expect(records.filter((r) => r.kind === "llm")).toHaveLength(2);
    expect(records.filter((r) => r.kind === "tool")).toHaveLength(1);
    await page.goto(`${server.url}/sessions/${sessionId}/debug`);
    await page.getByRole("table", { name: "LLM calls" }).locator("tr.llm-row").nth(1).waitFor();
    await page.close();
  });
});
