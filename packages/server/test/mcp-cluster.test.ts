import { text } from "@arbor/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../src/index.js";
import { clusterRig } from "./helpers/cluster-instance.js";

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

/** Two instances over one database, each serving HTTP; both answer runs with `answer`. */
async function twoInstances(answer: string) {
  const a = await instance([[text(answer)]]);
  const b = await instance([[text(answer)]], { url: a.url, store: await postgresStore(a.url), cwd: a.cwd });
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

async function connect(urls: readonly string[]) {
  const balancer = roundRobin(urls);
  const client = new Client({ name: "cluster-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${urls[0]}/mcp`), { fetch: balancer.fetch }));
  cleanups.push(() => client.close());
  return { client, served: balancer.served };
}

describe("/mcp on a cluster: any instance answers any request", () => {
  it("lists, reads a session resource and runs a prompt through the queue with requests alternating between instances", async () => {
    const { a, urls } = await twoInstances("Answered on the cluster.");
    const { id: existing } = await a.store.createSession({ cwd: a.cwd, title: "made before" });
    const { client, served } = await connect(urls);
    // Stateless: no session the next request's instance would not know.
    expect(client.getServerCapabilities()?.resources?.subscribe).toBeFalsy();

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

  it("has no standing stream to offer: GET is 405, and a run's progress and result come on its call", async () => {
    const { urls } = await twoInstances("unused");
    const res = await fetch(`${urls[1]}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(await res.text()).toMatch(/stateless/);
  }, 60_000);
});
