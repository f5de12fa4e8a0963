import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { text, toolCall } from "@arbor/testkit";
import type { Page } from "playwright-core";
import { build, type PreviewServer, preview } from "vite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gateTool } from "../../server/test/helpers/server.js";
import { screenshot } from "./helpers/browser.js";
import type { WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

/** The example app as a user runs it: built from the repository, served by `vite preview` with /api forwarded. */
const EXAMPLE = fileURLToPath(new URL("../../../examples/ui-chat/", import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), "arbor-ui-chat-"));

const web = browserSuite();
let page: PreviewServer | undefined;
beforeAll(async () => {
  await build({ root: EXAMPLE, logLevel: "warn", build: { outDir, emptyOutDir: true } });
});
// Registered after the suite's hooks, so it runs before them: the preview closes before the server behind it.
afterEach(async () => {
  await page?.close();
  page = undefined;
});
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

/** The built example in front of `server`, on a free port. */
async function serveExample(target: string): Promise<string> {
  page = await preview({
    root: EXAMPLE,
    logLevel: "warn",
    build: { outDir },
    // Merged into the example's own proxy settings: only the target changes.
    preview: { host: "127.0.0.1", port: 0, proxy: { "/api": { target } } },
  });
  const url = page.resolvedUrls?.local[0];
  if (!url) throw new Error("vite preview has no local URL");
  return url;
}

/** The example's page for chat `chatId`, in front of `server`, with `message` sent from its composer. */
async function sendFromExample(server: WebServer, chatId: string, message: string): Promise<Page> {
  const tab = await web.page();
  await tab.goto(`${await serveExample(server.url)}?chat=${chatId}`);
  await tab.getByLabel("Message").fill(message);
  await tab.getByLabel("Message").press("Enter");
  return tab;
}

describe("examples/ui-chat (a stock useChat page) against arbor serve", () => {
  it("sends, streams, approves a permission, and after a reload mid-run sees the run continue", async () => {
    const gate = gateTool();
    const server = await web.server({
      script: [
        [text("Reading the file now.", { chunks: 3 }), toolCall("read", { path: ".env" }, { id: "r1" })],
        [text("Waiting at the gate.", { chunks: 2 }), toolCall("gate", {}, { id: "g1" })],
        [text("All done: DEBUG=1.", { chunks: 3 })],
      ],
      tools: [gate.tool],
    });
    writeFileSync(join(server.cwd, ".env"), "DEBUG=1\n");
    const tab = await sendFromExample(server, "chat-browser", "What does .env set?");
    await tab.getByText("Reading the file now.").waitFor();
    // The permission ask is a tool approval on the read call; the page's Allow answers it.
    const read = tab.getByLabel("Tool read");
    await read.getByText("approval-requested").waitFor();
    expect(server.runtime.asks.pendingPermissions("chat-browser")).toHaveLength(1);
    await screenshot(tab, "ui-chat-approval");
    await read.getByRole("button", { name: "Allow" }).click();

    // The approval continues the same run: the read's output, then the run holds at the gate.
    await tab.getByText("Waiting at the gate.").waitFor();
    await tab.getByLabel("Tool gate").waitFor();
    expect(await read.textContent()).toContain("output-available");
    expect(gate.calls).toBe(1);

    // A reload mid-run: useChat's resume asks for the run in progress and replays it from the event log.
    await tab.reload();
    await tab.getByText("Waiting at the gate.").waitFor();
    await tab.getByText("Reading the file now.").waitFor();
    expect(await tab.getByLabel("Status").textContent()).toContain("streaming");
    gate.release("opened");
    await tab.getByText("All done: DEBUG=1.").waitFor();
    await tab.getByLabel("Status").getByText("ready").waitFor();
    expect(await tab.getByLabel("Tool gate").textContent()).toContain("output-available");
    await screenshot(tab, "ui-chat-resumed");
    // One session, named by the chat id, holds the whole exchange.
    const session = await server.store.getSession("chat-browser");
    expect(session?.totalMessages).toBeGreaterThanOrEqual(6);
  });

  it("Regenerate answers the question again on a new branch of the session", async () => {
    const server = await web.server({ script: [[text("First answer.")], [text("Second answer.")]] });
    const tab = await sendFromExample(server, "chat-regen", "Say something");
    await tab.getByText("First answer.").waitFor();
    await tab.getByRole("button", { name: "Regenerate" }).click();
    await tab.getByText("Second answer.").waitFor();
    // The server says where it branched; the old answer is gone from the page but kept in the session's tree.
    await tab.getByText(/^new branch from /).waitFor();
    expect(await tab.getByText("First answer.").count()).toBe(0);
    const tree = (await (await server.api("/api/sessions/chat-regen")).json()) as { entries: Array<{ type: string }> };
    expect(tree.entries.filter((e) => e.type === "message")).toHaveLength(4);
  });
});
