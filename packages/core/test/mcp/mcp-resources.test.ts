import { fileURLToPath, pathToFileURL } from "node:url";
import { type ScriptedModel, scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { McpServerConfig } from "../../src/config/schema.js";
import { isArborError } from "../../src/errors.js";
import { collect, harness } from "../loop/harness.js";
import { everythingStdio } from "./servers.js";

const NOTES_SERVER = fileURLToPath(new URL("./fixtures/notes-server.mjs", import.meta.url));

function mcpConfig(servers: Record<string, McpServerConfig>) {
  return resolveConfig([{ source: "test", value: { mcp: { servers, toolCacheTtl: 3600 } } }]);
}

/** The user message of a model call as the model got it: its text parts joined, and its file parts. */
function userMessage(model: ScriptedModel, call = 0): { text: string; files: { mediaType: string }[] } {
  const prompt = model.calls[call]?.prompt ?? [];
  const user = prompt.filter((m) => m.role === "user").at(-1);
  const parts = Array.isArray(user?.content) ? user.content : [];
  return {
    text: parts.map((p) => (p.type === "text" ? p.text : "")).join(""),
    files: parts.flatMap((p) => (p.type === "file" ? [{ mediaType: p.mediaType }] : [])),
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("MCP resources, prompts and roots (server-everything)", () => {
  it("lists resources, templates and prompts, and reads a text and a binary resource", async () => {
    const { runtime } = await harness({ model: scriptedModel([]), config: mcpConfig({ everything: everythingStdio() }) });
    const listing = await runtime.mcp.resources("everything");
    expect(listing.subscribe).toBe(true);
    const doc = listing.resources.find((r) => r.uri.endsWith("/instructions.md"));
    expect(doc).toMatchObject({ uri: "demo://resource/static/document/instructions.md", mimeType: "text/markdown" });
    expect(listing.templates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(["demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"]),
    );
    const first = await runtime.mcp.readResource("everything", doc?.uri ?? "");
    expect(first.cached).toBe(false);
    expect(first.contents[0]).toMatchObject({ uri: doc?.uri, text: expect.stringContaining("#") });
    // Subscribed by the first read, so the second is answered from it.
    expect((await runtime.mcp.readResource("everything", doc?.uri ?? "")).cached).toBe(true);
    const blob = await runtime.mcp.readResource("everything", "demo://resource/dynamic/blob/3");
    expect(blob.contents[0]).toMatchObject({ blob: expect.any(String) });
    const prompts = await runtime.mcp.prompts("everything");
    expect(prompts.find((p) => p.name === "args-prompt")?.arguments).toMatchObject([
      { name: "city", description: "Name of the city", required: true },
      { name: "state", required: false },
    ]);
    const filled = await runtime.mcp.prompt("everything", "args-prompt", { city: "Lyon" });
    expect(filled.messages).toEqual([{ role: "user", content: [{ type: "text", text: "What's weather in Lyon?" }] }]);
  });

  it("names the configured servers, the nearest prompt and resource, and a missing argument", async () => {
    const { runtime } = await harness({ model: scriptedModel([]), config: mcpConfig({ everything: everythingStdio() }) });
    const server = await rejection(runtime.mcp.prompts("everythng"));
    expect(isArborError(server, "mcp_server_not_found") && server.message).toMatch(
      /did you mean "everything".*configured: everything/,
    );
    const prompt = await rejection(runtime.mcp.prompt("everything", "args-promt", { city: "x" }));
    expect(isArborError(prompt, "mcp_prompt_not_found") && prompt.message).toMatch(/did you mean "args-prompt"/);
    const arg = await rejection(runtime.mcp.prompt("everything", "args-prompt"));
    expect(isArborError(arg, "invalid_input") && arg.message).toMatch(/needs city=/);
    const resource = await rejection(runtime.mcp.readResource("everything", "demo://resource/static/document/instructions.mdx"));
    expect(isArborError(resource, "mcp_resource_not_found") && resource.message).toMatch(
      /did you mean "demo:\/\/resource\/static\/document\/instructions.md"/,
    );
    const none = await harness({ model: scriptedModel([]) });
    const off = await rejection(none.runtime.mcp.resources("fs"));
    expect(isArborError(off, "mcp_server_not_found") && off.message).toMatch(/configured: none/);
  });

  it("puts attached resources and a prompt's messages in the user message the model receives", async () => {
    const model = scriptedModel([[text("read it")], [text("done")]]);
    const { runtime, store } = await harness({ model, config: mcpConfig({ everything: everythingStdio() }) });
    const handle = runtime.runs.run({
      prompt: "explain @everything:demo://resource/static/document/instructions.md",
      attachments: [
        { mcpResource: { server: "everything", uri: "demo://resource/static/document/instructions.md" } },
        { mcpResource: { server: "everything", uri: "demo://resource/dynamic/blob/2" } },
      ],
    });
    expect((await collect(handle)).result.status).toBe("done");
    const got = userMessage(model);
    expect(got.text).toMatch(
      /^explain @everything:demo:\/\/resource\/static\/document\/instructions\.md\n\n\[resource everything:demo:\/\/resource\/static\/document\/instructions\.md\]\n#/,
    );
    expect(got.text).toMatch(/\[resource everything:demo:\/\/resource\/dynamic\/blob\/2 text\/plain, \d+ bytes\]$/);
    // The resolved message is what the session keeps, so a later turn sees the same.
    const path = await store.getActivePath(handle.sessionId);
    const user = path.find((e) => e.type === "message" && e.message.role === "user");
    expect(JSON.stringify(user)).toContain("[resource everything:demo://resource/static/document/instructions.md]");

    const second = runtime.runs.run({
      sessionId: handle.sessionId,
      prompt: "and this",
      mcpPrompt: { server: "everything", name: "resource-prompt", arguments: { resourceType: "Text", resourceId: "4" } },
    });
    expect((await collect(second)).result.status).toBe("done");
    expect(userMessage(model, 1).text).toMatch(
      /^This prompt includes the Text resource with id: 4\. Please analyze the following resource:\n\n\[resource everything:demo:\/\/resource\/dynamic\/text\/4\]\nResource 4: This is a plaintext resource .*\n\nand this$/,
    );
  });

  it("fails a run whose attachment cannot be read, before anything is recorded", async () => {
    const model = scriptedModel([[text("never")]]);
    const { runtime, store } = await harness({ model, config: mcpConfig({ everything: everythingStdio() }) });
    const handle = runtime.runs.run({ prompt: "x", attachments: [{ mcpResource: { server: "evrything", uri: "demo://x" } }] });
    const { result } = await collect(handle);
    expect(result.error).toMatchObject({ code: "mcp_server_not_found" });
    expect(model.calls).toHaveLength(0);
    expect(await store.getSession(handle.sessionId)).toBeUndefined();
  });

  it("answers roots/list with the workspace as a file:// URI", async () => {
    const model = scriptedModel([[toolCall("mcp__everything__get-roots-list", {}, { id: "r" })], [text("ok")]]);
    const { runtime, cwd } = await harness({ model, config: mcpConfig({ everything: everythingStdio() }) });
    const { events } = await collect(runtime.runs.run({ prompt: "roots?" }));
    const end = events.find((e) => e.type === "tool_end");
    expect(end?.type === "tool_end" && end.output).toContain(pathToFileURL(cwd).href);
  });
});

describe("MCP resource subscriptions", () => {
  it("reads a resource again once its server says it changed, and reuses it until then", async () => {
    const notes: McpServerConfig = { command: process.execPath, args: [NOTES_SERVER], timeoutMs: 30_000, enabled: true };
    const model = scriptedModel([
      [text("noted")],
      [toolCall("mcp__notes__set_note", { text: "second version" }, { id: "s" })],
      [text("saved")],
      [toolCall("mcp__notes__reads", {}, { id: "n" })],
      [text("again")],
    ]);
    const { runtime } = await harness({ model, config: mcpConfig({ notes }) });
    const attach = [{ mcpResource: { server: "notes", uri: "memo://note" } }];
    const first = runtime.runs.run({ prompt: "the note", attachments: attach });
    await collect(first);
    expect(userMessage(model, 0).text).toContain("[resource notes:memo://note]\nfirst version");
    // Unchanged since it was read: the copy is used, the server is not asked.
    expect((await runtime.mcp.readResource("notes", "memo://note")).cached).toBe(true);
    await collect(runtime.runs.run({ sessionId: first.sessionId, prompt: "change it" }));
    // set_note announced the change: the next run's attachment is read afresh.
    const third = runtime.runs.run({ sessionId: first.sessionId, prompt: "now", attachments: attach });
    const { events } = await collect(third);
    expect(userMessage(model, 3).text).toContain("[resource notes:memo://note]\nsecond version");
    const reads = events.find((e) => e.type === "tool_end");
    expect(reads?.type === "tool_end" && reads.output).toBe("2");
  });
});
