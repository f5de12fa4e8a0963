import { text } from "@arbor/testkit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  type ReadResourceResult,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectMcp } from "./helpers/mcp-client.js";
import { startServer, type TestServer } from "./helpers/server.js";

const TOKEN = "mcp-resources-token";

const connect = (server: TestServer) => connectMcp(server, TOKEN);

/** The JSON of a resource's one text content (Arbor's resources are JSON text). */
const json = (result: ReadResourceResult) => {
  const [first] = result.contents;
  return JSON.parse(first && "text" in first ? first.text : "null");
};

/** A session with one finished run (a user message and the answer), through run_prompt. */
async function ranSession(client: Client): Promise<string> {
  const result = (await client.callTool({ name: "run_prompt", arguments: { prompt: "hello" } })) as CallToolResult;
  return (result.structuredContent as { session_id: string }).session_id;
}

describe("/mcp resources, prompts and completion, driven by the MCP SDK's client", () => {
  it("lists sessions and agents as resources and reads a session, its tree, messages, an entry and its goal tree", async () => {
    const server = await startServer({ script: [[text("Hi there.")], [text("title")]], server: { token: TOKEN } });
    const client = await connect(server);
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true }, prompts: {}, completions: {} });
    const id = await ranSession(client);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([`arbor://sessions/${id}`, "arbor://agents/build"]));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      "arbor://agents/{name}",
      "arbor://sessions/{session_id}",
      "arbor://sessions/{session_id}/entries/{entry_id}",
      "arbor://sessions/{session_id}/messages",
      "arbor://sessions/{session_id}/tree",
      "arbor://traces/{trace_id}/goals",
    ]);

    expect(json(await client.readResource({ uri: `arbor://sessions/${id}` }))).toMatchObject({ id, totalMessages: 2 });
    const tree = json(await client.readResource({ uri: `arbor://sessions/${id}/tree` }));
    expect(tree.session.id).toBe(id);
    expect(tree.activePath).toHaveLength(tree.entries.length);
    const messages = json(await client.readResource({ uri: `arbor://sessions/${id}/messages` }));
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    const entryId = tree.entries[0].id as string;
    expect(json(await client.readResource({ uri: `arbor://sessions/${id}/entries/${entryId}` })).id).toBe(entryId);
    expect(json(await client.readResource({ uri: `arbor://traces/${id}/goals` }))).toMatchObject({
      trace_id: id,
      goal_tree: null,
    });
    expect(json(await client.readResource({ uri: "arbor://agents/build" })).name).toBe("build");

    await expect(client.readResource({ uri: "arbor://sessions/ses_nope" })).rejects.toThrow(/session_not_found/);
    await expect(client.readResource({ uri: `arbor://sessions/${id}/entries/e_nope` })).rejects.toThrow(/entry_not_found/);
  });

  it("completes session ids, entry ids and agent names", async () => {
    const server = await startServer({ script: [[text("Hi there.")], [text("title")]], server: { token: TOKEN } });
    const client = await connect(server);
    const id = await ranSession(client);
    const complete = async (uri: string, name: string, value: string, context?: Record<string, string>) =>
      (
        await client.complete({
          ref: { type: "ref/resource", uri },
          argument: { name, value },
          ...(context ? { context: { arguments: context } } : {}),
        })
      ).completion.values;
    expect(await complete("arbor://sessions/{session_id}", "session_id", id.slice(0, 6))).toEqual([id]);
    expect(await complete("arbor://sessions/{session_id}", "session_id", "zzz")).toEqual([]);
    const entries = (await server.store.listEntries(id)).map((e) => e.id);
    expect(await complete("arbor://sessions/{session_id}/entries/{entry_id}", "entry_id", "", { session_id: id })).toEqual(
      entries,
    );
    expect(await complete("arbor://agents/{name}", "name", "bu")).toEqual(["build"]);
    const prompt = await client.complete({
      ref: { type: "ref/prompt", name: "build" },
      argument: { name: "session_id", value: "" },
    });
    expect(prompt.completion.values).toEqual([id]);
  });

  it("offers each agent as a prompt that names the run_prompt call and embeds the session it continues", async () => {
    const server = await startServer({ script: [[text("Hi there.")], [text("title")]], server: { token: TOKEN } });
    const client = await connect(server);
    const id = await ranSession(client);
    const { prompts } = await client.listPrompts();
    const agents = server.runtime.defaults().agents.map((a) => a.name);
    expect(prompts.map((p) => p.name).sort()).toEqual([...agents].sort());
    for (const p of prompts) expect(p.description).toBeTruthy();
    const got = await client.getPrompt({ name: "build", arguments: { task: "fix the tests", session_id: id } });
    const [first, second] = got.messages;
    expect(first?.content).toMatchObject({ type: "text", text: expect.stringContaining('"agent":"build"') });
    expect(second?.content).toMatchObject({ type: "resource", resource: { uri: `arbor://sessions/${id}` } });
    await expect(client.getPrompt({ name: "build", arguments: { task: "x", session_id: "ses_nope" } })).rejects.toThrow(
      /session_not_found/,
    );
  });

  it("a subscription to a session notifies when the session gets new entries, until unsubscribed", async () => {
    const server = await startServer({
      script: [[text("One.")], [text("title")], [text("Two.")], [text("Three.")]],
      server: { token: TOKEN },
    });
    const client = await connect(server);
    const id = await ranSession(client);
    const uri = `arbor://sessions/${id}/messages`;
    const updates: string[] = [];
    let updated: () => void = () => {};
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      updated();
    });
    await client.subscribeResource({ uri });
    const notified = new Promise<void>((resolve) => {
      updated = resolve;
    });
    await client.callTool({ name: "run_prompt", arguments: { prompt: "again", session_id: id } });
    await notified;
    expect(new Set(updates)).toEqual(new Set([uri]));

    await client.unsubscribeResource({ uri });
    updates.length = 0;
    await client.callTool({ name: "run_prompt", arguments: { prompt: "once more", session_id: id } });
    // The run's own events were published before its call answered: none reached the ended subscription.
    await server.watch.flush(id);
    await client.ping();
    expect(updates).toEqual([]);
    await expect(client.subscribeResource({ uri: "test://elsewhere" })).rejects.toThrow(/No resource/);
    await expect(client.subscribeResource({ uri: "arbor://sessions/ses_nope" })).rejects.toThrow(/session_not_found/);
  });
});
