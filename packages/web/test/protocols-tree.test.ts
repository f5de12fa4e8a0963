import type { StreamResponse } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import * as acp from "@agentclientprotocol/sdk";
import type { Entry } from "@arbor/core";
import { text } from "@arbor/testkit";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createAcpAgent } from "../../server/src/index.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** The session's entry whose message says `words`. */
async function entrySaying(entries: Entry[], words: string): Promise<Entry> {
  const found = entries.find((e) => e.type === "message" && JSON.stringify(e.message.content).includes(words));
  if (!found) throw new Error(`No entry says ${JSON.stringify(words)}`);
  return found;
}

describe("one session tree over every protocol", () => {
  it("a session started over ACP is continued over Open Responses, forked over A2A, followed over AG-UI, and the inspector shows one tree", {
    timeout: 90_000,
  }, async () => {
    const server = await web.server({
      script: [
        [text("Started in the editor.")],
        [text("Continued by an OpenAI client.")],
        [text("Forked by another agent.")],
        [text("Followed by the front end.")],
      ],
    });

    // ACP: the editor's client (the SDK's own) starts the session and prompts in it.
    const connection = acp.client({ name: "editor" }).connect(createAcpAgent({ runtime: server.runtime }));
    const editor = connection.agent;
    await editor.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await editor.request("session/new", { cwd: server.cwd, mcpServers: [] });
    const prompted = await editor.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Start in the editor" }],
    });
    expect(prompted.stopReason).toBe("end_turn");
    connection.close();

    // Open Responses: the official client continues the session (its conversation) from its leaf.
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const continued = await openai.responses.create({
      model: "build",
      conversation: sessionId,
      input: "Continue over Responses",
    });
    expect(continued.output_text).toBe("Continued by an OpenAI client.");
    // Its id names the same session: a later response continues it in turn.
    expect(Buffer.from(continued.id.slice("resp_".length), "base64url").toString()).toContain(sessionId);

    // A2A: the task is the session; a message naming an entry of it forks a new branch there (after the editor's answer).
    const forkPoint = await entrySaying(await server.store.listEntries(sessionId), "Started in the editor.");
    const a2a = await new ClientFactory().createFromUrl(server.url);
    const forked: StreamResponse[] = [];
    for await (const r of a2a.sendMessageStream({
      tenant: "",
      message: {
        messageId: "fork-1",
        contextId: sessionId,
        taskId: "",
        role: 1,
        parts: [
          { content: { $case: "text", value: "Fork over A2A" }, metadata: undefined, filename: "", mediaType: "text/plain" },
        ],
        metadata: { fromEntryId: forkPoint.id },
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    })) {
      forked.push(r);
    }
    const last = forked.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.contextId).toBe(sessionId);

    // AG-UI: the front end's HttpAgent runs on the thread (the session), from its leaf: the A2A branch.
    const frontEnd = new HttpAgent({ url: `${server.url}/api/ag-ui`, threadId: sessionId });
    frontEnd.addMessage({ id: "u-agui", role: "user", content: "Follow over AG-UI" });
    await frontEnd.runAgent();
    expect(frontEnd.messages.some((m) => m.role === "assistant" && m.content === "Followed by the front end.")).toBe(true);

    // One session holds all of it: the editor's turn, then two branches (Responses; A2A then AG-UI).
    expect((await server.store.listSessions({})).sessions.map((s) => s.id)).toEqual([sessionId]);
    const entries = await server.store.listEntries(sessionId);
    const responses = await entrySaying(entries, "Continue over Responses");
    const fork = await entrySaying(entries, "Fork over A2A");
    expect(responses.parentId).toBe(forkPoint.id);
    expect(fork.parentId).toBe(forkPoint.id);
    const followed = await entrySaying(entries, "Follow over AG-UI");
    expect(followed.parentId).toBe((await entrySaying(entries, "Forked by another agent.")).id);

    // The inspector draws that one tree: every protocol's turn is a row, the AG-UI answer is the leaf.
    const page = await web.page({ width: 1280, height: 800 });
    await page.goto(`${server.url}/sessions/${sessionId}/tree`);
    for (const words of [
      "Start in the editor",
      "Started in the editor.",
      "Continue over Responses",
      "Continued by an OpenAI client.",
      "Fork over A2A",
      "Forked by another agent.",
      "Follow over AG-UI",
      "Followed by the front end.",
    ]) {
      await page.locator(".tree-row", { hasText: words }).first().waitFor();
    }
    await page.getByTestId("tree-stats").getByText("1 side branch").waitFor();
    await page.locator('.tree-row[aria-current="location"]', { hasText: "Followed by the front end." }).waitFor();
    expect(await page.locator(".tree-row.on-path", { hasText: "Continue over Responses" }).count()).toBe(0);
    expect(await page.locator(".tree-row.on-path", { hasText: "Fork over A2A" }).count()).toBe(1);
    await screenshot(page, "protocols-one-tree");
  });
});
