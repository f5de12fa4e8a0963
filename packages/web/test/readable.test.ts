import { beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { type RichSession, writeRichSession } from "./helpers/rich-session.js";
import type { WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
let server: WebServer;
let rich: RichSession;
beforeAll(async () => {
  server = await web.fileServer();
  rich = await writeRichSession(server.store);
});

describe("readable messages", () => {
  it("renders Markdown with highlighted code, tables and links, never the text's raw HTML", async () => {
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    const answer = page.locator(".msg-assistant .markdown").last();
    await answer.locator("h1", { hasText: "Parser fixed" }).waitFor();
    expect(await answer.locator("strong").first().textContent()).toBe("Bug:");
    // The fence is highlighted as TypeScript: keywords are their own spans.
    expect(await answer.locator("pre code.language-ts .hljs-keyword").count()).toBeGreaterThan(0);
    expect(await answer.locator("table th").allTextContents()).toEqual(["file", "change"]);
    const link = answer.getByRole("link", { name: "the docs" });
    expect(await link.getAttribute("href")).toBe("https://example.com/docs");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    // No literal Markdown left, and the raw HTML neither ran nor became elements.
    expect(await answer.textContent()).not.toContain("**Bug:**");
    expect(await answer.locator("script, img[src='x']").count()).toBe(0);
    expect(await page.evaluate("typeof window.__injected")).toBe("undefined");
    // The user's image is shown, and the sub-agent's summary reads as text with a way into its trace.
    expect(await page.locator(".msg-user img.md-image").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    const sub = page.getByRole("region", { name: "Sub-agent result" });
    expect(await sub.locator("strong").textContent()).toBe("two");
    expect(await sub.textContent()).not.toContain("{");
    await screenshot(page, "readable-markdown");
    await page.close();
  });

  it("shows an edit as a diff, a step's file changes, a goal call in words, and folds a long output", async () => {
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    const edit = page.getByRole("region", { name: "Tool call edit" });
    const diff = edit.getByRole("figure", { name: "Edit of src/parse.ts" });
    await diff.waitFor();
    expect(await diff.locator(".diff-del").allTextContents()).toEqual(["-const x = 1;\n"]);
    expect(await diff.locator(".diff-add").allTextContents()).toEqual(["+const x = 2;\n"]);
    const goal = page.getByRole("region", { name: "Tool call goal" });
    expect(await goal.locator(".tool-args-preview").textContent()).toBe(
      "Goals: added “Read the parser”, “Fix the bug”; focus → 1",
    );

    const patch = page.locator(".msg-patch");
    expect(await patch.locator("summary").textContent()).toContain("Changed 1 file: src/parse.ts (modified)");
    await patch.locator("summary").click();
    expect(await patch.locator(".diff-add").allTextContents()).toEqual(["+const x = 2;\n"]);

    const bash = page.getByRole("region", { name: "Tool call bash" });
    await bash.locator("summary").click();
    const output = bash.locator(".tool-output");
    expect(await output.textContent()).not.toContain("line 31");
    await bash.getByRole("button", { name: "Show all 100 lines" }).click();
    expect(await output.textContent()).toContain("line 100");
    await screenshot(page, "readable-diff-and-tools");
    await page.close();
  });

  /** A keyword's colour in the system's `scheme`, with the toggle's `theme` on <html> if given. */
  const colour = async (scheme: "light" | "dark", theme?: "light" | "dark") => {
    const page = await web.page({ width: 1440, height: 900, colorScheme: scheme });
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    if (theme) await page.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`);
    const keyword = page.locator(".msg-assistant pre code .hljs-keyword").first();
    await keyword.waitFor();
    const value = await keyword.evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).color);
    if (scheme === "dark" && !theme) await screenshot(page, "readable-markdown-dark");
    await page.close();
    return value;
  };

  it("highlights code in the dark theme's own colours", async () => {
    expect(await colour("light")).toBe("rgb(166, 38, 164)");
    expect(await colour("dark")).toBe("rgb(209, 155, 255)");
  });

  it("takes the toggle's theme over the system's, both ways", async () => {
    expect(await colour("dark", "light")).toBe("rgb(166, 38, 164)");
    expect(await colour("light", "dark")).toBe("rgb(209, 155, 255)");
  });
});

describe("costs and tokens at a glance", () => {
  it("the header totals tokens by kind and cost; Steps shows each step's usage and the context chart with its compaction", async () => {
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(`${server.url}/sessions/${rich.parent.id}/steps`);
    const totals = page.getByTestId("session-totals");
    // The sub-agents' figure comes from their own sessions, read after the snapshot.
    await totals.getByTestId("sub-agent-totals").waitFor();
    // 1200 + 900 input, 300 + 1500 cached, 80 + 200 output, 40 reasoning, $0.0123 + $0.02; the two
    // sub-traces were written without entries.
    expect(await totals.textContent()).toBe("Input2100Cached1800Output280Reasoning40Cost$0.03Steps2Sub-agents0 tokens in 2 runs");
    const usage = page.getByTestId("step-usage");
    await usage.first().waitFor();
    expect(await usage.allTextContents()).toEqual([
      " · 1200 in · 300 cached · 80 out · 40 reasoning · $0.01",
      " · 900 in · 1500 cached · 200 out · $0.02",
    ]);
    const chart = page.getByTestId("context-chart");
    expect(await chart.locator("figcaption").textContent()).toBe(
      "Context size per model call: peak 2400 tokens over 2 calls, 1 compaction (dashed)",
    );
    expect(await chart.getByTestId("compaction-mark").count()).toBe(1);
    await screenshot(page, "costs-steps");
    await page.close();
  });

  it("says the price is unknown when no call has one", async () => {
    const unpriced = await writeRichSession(server.store, { priced: false });
    const page = await web.page();
    await page.goto(`${server.url}/sessions/${unpriced.parent.id}`);
    const totals = page.getByTestId("session-totals");
    await totals.waitFor();
    expect(await totals.textContent()).toContain("Costprice unknown");
    await page.close();
  });
});

describe("todos", () => {
  it("the session's todo list as its path leaves it", async () => {
    const page = await web.page();
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    const todos = page.getByTestId("todo-panel");
    await todos.locator("summary").click();
    expect(await todos.locator("summary").textContent()).toBe("Todos: 1 of 2 done");
    expect(await todos.locator("li").allTextContents()).toEqual(["☑ Read the parser (completed)", "◐ Fix the bug (in progress)"]);
    await screenshot(page, "todos");
    await page.close();
  });
});
