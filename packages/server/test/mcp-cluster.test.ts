import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hang, type Script, text, toolCall } from "@arbor/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../src/index.js";
import { clusterRig } from "./helpers/cluster-instance.js";
import { runPromptAnsweringOnce } from "./helpers/mcp-client.js";

/**
 * `/mcp` behind a round-robin load balancer: two `--cluster` instances in process over one
 * PostgreSQL database, and the MCP SDK's client whose every HTTP request goes to the other instance
 * than the one before, so no request finds what an earlier one left in a process.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
const { postgresStore, instance } = clusterRig(cleanups);

/** Two instances over one database, each serving HTTP; whichever runs a chat answers it with `script` (or just `script`'s text). */
async function twoInstances(script: Script | string) {
  const steps = typeof script === "string" ? [[text(script)]] : script;
  const a = await instance(steps);
  const b = await instance(steps, { url: a.url, store: await postgresStore(a.url), cwd: a.cwd });
  const urls: string[] = [];
  for (const { runtime, node } of [a, b]) {
    const listening = await createServer({ runtime, cluster: node }).listen({ port: 0 });
    cleanups.push(() => listening.close());
    urls.push(listening.url);
  }
  return { a, b, urls };
}

/** A fetch that sends each request to the next of `urls` in turn, counting what each got. */
function roundRobin(urls: readonly string[]) {
  const served = urls.map(() => 0);
  let next = 0;
  const fetchNext = (input: string | URL, init?: RequestInit) => {
    const i = next++ % urls.length;
    served[i] = (served[i] ?? 0) + 1;
    const target = new URL(input.toString());
    const base = new URL(urls[i] as string);
    target.host = base.host;
    return fetch(target, init);
  };
  return { fetch: fetchNext, served };
}

async function connect(urls: readonly string[], options?: ConstructorParameters<typeof Client>[1]) {
  const balancer = roundRobin(urls);
  const client = new Client({ name: "cluster-test", version: "1.0.0" }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${urls[0]}/mcp`), { fetch: balancer.fetch }));
  cleanups.push(() => client.close());
  return { client, served: balancer.served };
}

describe("/mcp on a cluster: any instance answers any request", () => {
  it("lists, reads a session resource and runs a prompt through the queue with requests alternating between instances", async () => {
    const { a, urls } = await twoInstances("Answered on the cluster.");
    const { id: existing } = await a.store.createSession({ cwd: a.cwd, title: "made before" });
    const { client, served } = await connect(urls);
    // Stateless, yet subscriptions are offered: the cluster keeps them (see the test below).
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);

    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("run_prompt");
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toContain(`arbor://sessions/${existing}`);
    const read = await client.readResource({ uri: `arbor://sessions/${existing}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: existing, title: "made before" });

    const progress: string[] = [];
    const result = (await client.callTool({ name: "run_prompt", arguments: { prompt: "Answer me." } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ""),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: "done", text: "Answered on the cluster.", steps: 1 });
    expect(progress).toEqual(expect.arrayContaining([expect.stringMatching(/^model called/)]));
    const sessionId = (result.structuredContent as { session_id: string }).session_id;
    // Recorded and queued like /api/chat's chats, whichever instance then ran it.
    const logged = (await a.store.listEvents(sessionId, { after: 0 })).map((e) => e.type);
    expect(logged[0]).toBe("chat_queued");

    const messages = await client.readResource({ uri: `arbor://sessions/${sessionId}/messages` });
    expect((messages.contents[0] as { text: string }).text).toContain("Answered on the cluster.");
    // Every request after the first went to the other instance than the one before it.
    expect(served[0]).toBeGreaterThanOrEqual(4);
    expect(served[1]).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it("a client that shows elicitations is still asked through progress messages: stateless, its reply could not reach the asking server", async () => {
    const { a, urls } = await twoInstances([[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]]);
    writeFileSync(join(a.cwd, ".env"), "KEY=1\n");
    const { client } = await connect(urls, { capabilities: { elicitation: { form: {} } } });
    const elicited: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return { action: "accept", content: { reply: "once" } };
    });
    const { result, answers } = await runPromptAnsweringOnce(client, "check .env");
    expect(result.structuredContent).toMatchObject({ status: "done", text: "The key is set." });
    expect(answers).toHaveLength(1);
    expect(elicited).toEqual([]);
  }, 60_000);

  it("offers no standing stream to a client it did not name: GET without Mcp-Session-Id is 405", async () => {
    const { urls } = await twoInstances("unused");
    const res = await fetch(`${urls[1]}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(await res.text()).toMatch(/stateless/);
  }, 60_000);

  it("a subscription made through one instance is told on the client's GET stream held by the other", async () => {
    const { a, urls } = await twoInstances("More to read.");
    const { id } = await a.store.createSession({ cwd: a.cwd, title: "watched" });
    // Every POST (initialize, subscribe, the run) to the first instance, the GET stream to the second.
    const served = { post: 0, get: 0 };
    const split = (input: string | URL, init?: RequestInit) => {
      const get = (init?.method ?? "GET") === "GET";
      served[get ? "get" : "post"]++;
      const target = new URL(input.toString());
      target.host = new URL(urls[get ? 1 : 0] as string).host;
      return fetch(target, init);
    };
    const client = new Client({ name: "cluster-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${urls[0]}/mcp`), { fetch: split });
    await client.connect(transport);
    cleanups.push(() => client.close());
    // The initialize response named the client; no instance keeps anything under that name.
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const uri = `arbor://sessions/${id}/messages`;
    const updates: string[] = [];
    let updated: () => void = () => {};
    const notified = new Promise<void>((resolve) => {
      updated = resolve;
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      updated();
    });
    await client.subscribeResource({ uri });
    const result = (await client.callTool({
      name: "run_prompt",
      arguments: { prompt: "again", session_id: id },
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: "done", text: "More to read." });
    await notified;
    expect(new Set(updates)).toEqual(new Set([uri]));
    expect(served.get).toBeGreaterThanOrEqual(1);
    // A URI that names nothing of Arbor's is refused, not kept.
    await expect(client.subscribeResource({ uri: "test://elsewhere" })).rejects.toThrow(/No resource/);

    // Kept in the database, not in an instance: either reads them (for the principal that made
    // them, here the local one of a server without tokens); unsubscribing or ending the client's
    // MCP session (DELETE) drops them.
    const book = a.node.mcpSubscriptions;
    const named = transport.sessionId as string;
    expect((await book.list(named, "local")).map((s) => s.uri)).toEqual([uri]);
    await client.unsubscribeResource({ uri });
    expect(await book.list(named, "local")).toEqual([]);
    await client.subscribeResource({ uri: `arbor://sessions/${id}` });
    expect(await book.list(named, "local")).toHaveLength(1);
    await transport.terminateSession();
    expect(await book.list(named, "local")).toEqual([]);
  }, 60_000);
  it("a GET stream opened after the subscription, on another instance, reads it from the cluster and is told", async () => {
    const { a, urls } = await twoInstances("Later news.");
    const { id } = await a.store.createSession({ cwd: a.cwd, title: "watched later" });
    // The client's GET stream waits until the test lets it go, as one reconnecting after its instance went away.
    let letGet = () => {};
    const getGate = new Promise<void>((resolve) => {
      letGet = resolve;
    });
    const split = async (input: string | URL, init?: RequestInit) => {
      const get = (init?.method ?? "GET") === "GET";
      if (get) await getGate;
      const target = new URL(input.toString());
      target.host = new URL(urls[get ? 1 : 0] as string).host;
      return fetch(target, init);
    };
    const client = new Client({ name: "cluster-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${urls[0]}/mcp`), { fetch: split }));
    cleanups.push(() => client.close());
    const uri = `arbor://sessions/${id}`;
    let updated: (uri: string) => void = () => {};
    const notified = new Promise<string>((resolve) => {
      updated = resolve;
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated(n.params.uri));
    await client.subscribeResource({ uri });
    // Logged after the subscription, before any stream was open: told once the stream opens.
    const result = (await client.callTool({
      name: "run_prompt",
      arguments: { prompt: "news?", session_id: id },
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: "done", text: "Later news." });
    letGet();
    expect(await notified).toBe(uri);
  }, 60_000);
});

/** Starts a run as a task (tools/call of start_run, task-augmented); its task id. */
async function startTask(client: Client, prompt: string): Promise<string> {
  const created = await client.request(
    { method: "tools/call", params: { name: "start_run", arguments: { prompt }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  expect(created.task.status).toBe("working");
  return created.task.taskId;
}

describe("runs as MCP tasks on a cluster", () => {
  it("a task waits for an ask (input_required, naming it), is answered and finishes; every call on another instance", async () => {
    const { a, urls } = await twoInstances([[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]]);
    writeFileSync(join(a.cwd, ".env"), "KEY=1\n");
    const { client, served } = await connect(urls);
    expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
    const taskId = await startTask(client, "check .env");

    // The run's progress is the task's status message; an ask makes it input_required.
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(taskId)).status, { timeout: 30_000, interval: 50 })
      .toBe("input_required");
    const waiting = await client.experimental.tasks.getTask(taskId);
    const id = /answer_permission id=(\S+)/.exec(waiting.statusMessage ?? "")?.[1];
    expect(waiting.statusMessage).toMatch(/waiting for permission read/);
    const answered = (await client.callTool({ name: "answer_permission", arguments: { id, reply: "once" } })) as CallToolResult;
    expect(answered.isError).toBeFalsy();

    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: "done", text: "The key is set." });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");
    // The task is the run in the store: the session holds it, and both instances answered for it.
    const sessionId = (result.structuredContent as { session_id: string }).session_id;
    expect(taskId.startsWith(sessionId)).toBe(true);
    expect((await a.store.getSession(sessionId))?.status).toBe("completed");
    expect(Math.min(...served)).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it("tasks/cancel aborts a long run wherever it is driven; the task reads cancelled, what it wrote kept", async () => {
    const { a, urls } = await twoInstances([[text("Thinking…"), hang()]]);
    const { client } = await connect(urls);
    const taskId = await startTask(client, "take your time");
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(taskId)).statusMessage, { timeout: 30_000, interval: 50 })
      .toMatch(/^model called/);
    await client.experimental.tasks.cancelTask(taskId);
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(taskId)).status, { timeout: 30_000, interval: 50 })
      .toBe("cancelled");
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: "aborted" });
    const sessionId = (result.structuredContent as { session_id: string }).session_id;
    expect((await a.store.getSession(sessionId))?.status).toBe("aborted");
    const kept = (await a.store.listEntries(sessionId)).flatMap((e) => (e.type === "message" ? [e.message.role] : []));
    expect(kept[0]).toBe("user");
    // A finished task cannot be cancelled again; an unknown one is not found.
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal status/);
    await expect(client.experimental.tasks.getTask("nope~0")).rejects.toThrow(/not found/i);
  }, 60_000);
});
