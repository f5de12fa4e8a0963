import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { formElicitingServer, urlElicitingServer } from "../../core/test/mcp/servers.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { type ArborTerminal, startTerminal } from "./helpers/terminal.js";

/**
 * `arbor chat` in a pseudo-terminal answering MCP servers' elicitations asked during a tool call:
 * a form filled in field by field (typed per its schema, a bad value asked again, Enter keeping a
 * default), and a URL accepted or declined. What the server got back is its tool's output.
 */
describe("arbor chat answers MCP elicitations", () => {
  const e2e = setupCliE2e("arbor-cli-chat-elicit-");
  const servers: Array<{ url: string; close(): Promise<void> }> = [];
  let term: ArborTerminal | undefined;

  beforeAll(async () => {
    const tickets = await formElicitingServer();
    const accounts = await urlElicitingServer();
    servers.push(tickets, accounts);
    await writeFile(
      join(e2e.workspace, "arbor.json"),
      JSON.stringify({
        mcp: {
          servers: { tickets: { url: tickets.url, timeoutMs: 60_000 }, accounts: { url: accounts.url, timeoutMs: 60_000 } },
        },
      }),
    );
  });
  afterEach(() => term?.kill());
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  /** Types a line, waits until the composer shows it, then presses Enter. */
  const line = async (t: ArborTerminal, typed: string) => {
    if (typed !== "") {
      t.type(typed);
      await t.waitForScreen(new RegExp(`│ › ${typed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    }
    t.type("\r");
  };

  /** Starts `arbor chat` on a model that calls the MCP `tool` (call id `callId`), then says `answer`; sends `prompt`. */
  const chatCalling = async (tool: string, callId: string, answer: string, prompt: string) => {
    const baseURL = await e2e.fake([[toolCall(tool, {}, { id: callId })], [text(answer)]]);
    const t = startTerminal(["chat", "--yes", ...e2e.modelArgs(baseURL)], { home: e2e.home, cwd: e2e.workspace });
    term = t;
    await t.waitFor(/new session · openai-compatible\/fake/);
    await line(t, prompt);
    return t;
  };

  it("fills in a form field by field and the server gets the typed content", async () => {
    const t = await chatCalling("mcp__tickets__file_ticket", "t1", "Filed.", "file a ticket");
    await t.waitFor(
      /MCP server tickets asks: Describe the ticket to file\.[\s\S]*Fields: Title, Priority, Estimate \(hours\), Urgent[\s\S]*\[a\]ccept/,
    );
    t.save("chat-elicitation-form");
    t.type("a");
    await t.waitForScreen(/Title \(title\): text \(required\)/);
    // Enter on a required field without a default is asked again.
    await line(t, "");
    await t.waitForScreen(/\(title is required\)/);
    await line(t, "Printer on fire");
    await t.waitForScreen(/Priority \(priority\): one, by number: 1\) low {2}2\) normal {2}3\) high \(Enter keeps normal\)/);
    await line(t, "3");
    await t.waitForScreen(/Estimate \(hours\) \(estimate\): a number \(Enter leaves it out\)/);
    await line(t, "soon");
    await t.waitForScreen(/\(type a number\)/);
    await line(t, "1.5");
    await t.waitForScreen(/Urgent \(urgent\): y\/n \(Enter keeps false\)/);
    t.save("chat-elicitation-field");
    await line(t, "y");
    await t.waitFor(/✓ done/);
    const all = t.all();
    expect(all).toContain("Filed.");
    expect(all).toMatch(/✓ mcp__tickets__file_ticket/);
    t.type("\u0003");
    await t.waitFor(/press Ctrl-C again to quit/);
    t.type("\u0003");
    expect(await t.exit).toBe(0);

    const sessions = JSON.parse((await e2e.arbor(["sessions", "list", "--json"])).stdout) as { sessions: { id: string }[] };
    const shown = await e2e.arbor(["sessions", "show", sessions.sessions[0]?.id ?? "", "--json"]);
    // The tool's output, what the server got back: the typed values, each of its field's type.
    expect(shown.stdout).toContain(
      'content: {\\"title\\":\\"Printer on fire\\",\\"priority\\":\\"high\\",\\"estimate\\":1.5,\\"urgent\\":true}',
    );
  }, 180_000);

  it("shows a URL elicitation's page and declines it with a key", async () => {
    const t = await chatCalling("mcp__accounts__connect_account", "c1", "Not connected.", "connect my account");
    await t.waitFor(
      /MCP server accounts asks you to open a page: Sign in to Example[\s\S]*https:\/\/example\.test\/connect\?state=abc[\s\S]*\[d\]ecline/,
    );
    t.save("chat-elicitation-url");
    t.type("d");
    await t.waitFor(/✓ done/);
    expect(t.all()).toContain("Not connected.");
    const pending = JSON.parse((await e2e.arbor(["approvals", "pending", "--json"])).stdout) as { asks: unknown[] };
    expect(pending.asks).toEqual([]);
    t.type("\u0003");
    await t.waitFor(/press Ctrl-C again to quit/);
    t.type("\u0003");
    expect(await t.exit).toBe(0);
  }, 180_000);
});
