import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { urlElicitingServer } from "../../core/test/mcp/servers.js";
import { runToElicitation } from "./helpers/asks.js";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";

/**
 * An MCP server (the SDK's McpServer over HTTP) that asks, during a tool call, for the user to open
 * a URL: `arbor run` says which `arbor approve` answers it, and another process answers it.
 */
const e2e = setupCliE2e("arbor-mcp-url-elicitation-");
let server: Awaited<ReturnType<typeof urlElicitingServer>> | undefined;

beforeAll(async () => {
  server = await urlElicitingServer();
  await writeFile(
    join(e2e.workspace, "arbor.json"),
    JSON.stringify({ mcp: { servers: { accounts: { url: server.url, timeoutMs: 60_000 } } } }),
  );
});
afterAll(async () => {
  await server?.close();
});

describe("an MCP server's URL elicitation in arbor run", () => {
  it("waits as an ask that arbor approvals lists with its URL and arbor approve accepts from another process", {
    timeout: 120_000,
  }, async () => {
    const { run, id } = await runToElicitation(e2e, {
      script: [[toolCall("mcp__accounts__connect_account", {}, { id: "c1" })], [text("Connected.")]],
      prompt: "Connect my account.",
      check: (elicitation) => expect(elicitation).toMatchObject({ mode: "url", url: "https://example.test/connect?state=abc" }),
      shows: "MCP server accounts asks you to open https://example.test/connect?state=abc",
    });
    const answered = await e2e.arbor(["approve", id, "--json"]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(JSON.parse(answered.stdout)).toMatchObject({ id, kind: "elicitation", allowed: true });
    const r = await run.result;
    expect(r.code, r.stderr).toBe(0);
    // The run told where it waited and how to answer.
    expect(r.stderr).toContain(`'arbor approve ${id}`);
    const end = runEvents(r).find((e) => e.type === "tool_end" && e.call_id === "c1");
    expect(end?.type === "tool_end" ? end.output : "").toBe("action: accept");
  });
});
