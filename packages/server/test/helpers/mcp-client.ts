import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { onCleanup, type TestServer } from "./server.js";

/**
 * The MCP SDK's client connected to the server's /mcp over Streamable HTTP, sending `token` as its
 * bearer (null: no authorization header); closed after the test, before the server stops.
 */
export async function connectMcp(server: Pick<TestServer, "url">, token: string | null, name = "test"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: token === null ? {} : { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  onCleanup(() => client.close());
  return client;
}

/**
 * Calls run_prompt with `prompt`, answering "once" each permission its progress messages ask for
 * (`answer_permission id=…`): the run's result, and the answers' calls.
 */
export async function runPromptAnsweringOnce(client: Client, prompt: string) {
  const answers: Promise<unknown>[] = [];
  const result = (await client.callTool({ name: "run_prompt", arguments: { prompt } }, undefined, {
    onprogress: (p) => {
      const id = /answer_permission id=(\S+)/.exec(p.message ?? "")?.[1];
      if (id !== undefined) answers.push(client.callTool({ name: "answer_permission", arguments: { id, reply: "once" } }));
    },
  })) as CallToolResult;
  return { result, answers };
}

/** A tool result's text blocks, joined. */
export const textOfResult = (result: CallToolResult) => result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
