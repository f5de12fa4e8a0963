import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionExport } from "@arbor/core";
import {
  type Conversion,
  convertClaudeCodeSession,
  convertCodexSession,
  convertOpenCodeRows,
  convertPiSession,
} from "@arbor/core/interop";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, screenshot } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/server.js";

const FIXTURES = fileURLToPath(new URL("../../core/test/fixtures/sessions/", import.meta.url));
const read = (rel: string) => readFileSync(`${FIXTURES}${rel}`, "utf8");
const claude = (main: string, agents: string[] = []) =>
  convertClaudeCodeSession(
    { name: basename(main), text: read(main) },
    agents.map((a) => ({ name: basename(a), text: read(a) })),
  );

function conversions(): Conversion[] {
  const dump = read("opencode/question.rows.jsonl")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { table: string; row: unknown });
  return [
    convertPiSession(read("pi/v1-linear-large-session.jsonl")),
    convertPiSession(read("pi/v3-real-world-trimmed.jsonl")),
    convertPiSession(read("pi/v3-smoke-redacted.jsonl")),
    claude("claude-code/v1.0.108-inline-sidechain.jsonl"),
    claude("claude-code/v2.0.64-warmup-agents/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", [
      "claude-code/v2.0.64-warmup-agents/agent-36541525.jsonl",
      "claude-code/v2.0.64-warmup-agents/agent-50243ee8.jsonl",
    ]),
    claude("claude-code/v2.0.69-thinking.jsonl"),
    claude("claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl", [
      "claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl",
    ]),
    claude("claude-code/v2.1.19-agent-progress.jsonl"),
    claude("claude-code/v2.1.36-compaction.jsonl"),
    convertCodexSession(read("codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")),
    ...convertOpenCodeRows({
      sessions: dump.filter((l) => l.table === "session_v2").map((l) => l.row),
      messages: dump.filter((l) => l.table === "session_message").map((l) => l.row),
    }),
  ];
}

function sideBranches(s: SessionExport): number {
  const kids = new Map<string, number>();
  for (const e of s.entries) if (e.parentId !== null) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
  return [...kids.values()].reduce((n, k) => n + (k > 1 ? k - 1 : 0), 0);
}

let browser: Browser;
let server: WebServer;
const sessions = conversions().flatMap((c) => c.sessions);
beforeAll(async () => {
  browser = await launchBrowser();
  server = await startWebServer();
  for (const s of sessions) await server.store.importSession(s);
});
afterAll(async () => {
  await server?.close();
  await browser?.close();
});

describe("sessions imported from other agents in the inspector", () => {
  it("every one shows its whole tree, and its conversation, without a page error", { timeout: 240_000 }, async () => {
    const page = await openPage(browser, { width: 1440, height: 900 });
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
