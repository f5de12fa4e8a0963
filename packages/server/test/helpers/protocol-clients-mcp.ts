import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@arbor/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { textOfResult } from "./mcp-client.js";
import { type ClientDriver, type ProtocolClient, serverWith, writeFiles } from "./protocol-client.js";
import { onCleanup, tempDir } from "./server.js";

/** The MCP tools through the SDK's Client, over `transport`; `sessions` counts the server's sessions. */
async function mcpClient(transport: Transport, sessions: () => Promise<number>): Promise<ProtocolClient> {
  const client = new Client({ name: "conformance", version: "1.0.0" });
  await client.connect(transport);
  // Closing a stdio client ends its server process.
  onCleanup(() => client.close());
  const call = async (name: string, args: Record<string, unknown>, onProgress?: (message: string) => void) =>
    (await client.callTool(
      { name, arguments: args },
      undefined,
      onProgress ? { onprogress: (p) => onProgress(p.message ?? "") } : {},
    )) as CallToolResult;
  return {
    async answer(prompt) {
      const result = await call("run_prompt", { prompt });
      if (result.isError) throw new Error(textOfResult(result));
      return textOfResult(result);
    },
    async approve(prompt) {
      let asked = "";
      const answers: Promise<CallToolResult>[] = [];
      const result = await call("run_prompt", { prompt }, (message) => {
        const id = /answer_permission id=(\S+)/.exec(message)?.[1];
        if (id === undefined) return;
        asked = message;
        answers.push(call("answer_permission", { id, reply: "once" }));
      });
      for (const answered of await Promise.all(answers)) if (answered.isError) throw new Error(textOfResult(answered));
      return { asked, text: textOfResult(result) };
    },
    async refuse() {
      try {
        const result = await call("run_prompt", { prompt: "hi", session_id: "not an id" });
        if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
        return textOfResult(result);
      } catch (err) {
        return (err as Error).message;
      }
    },
    sessions,
  };
}

export const mcpHttpDriver: ClientDriver = {
  client: "@modelcontextprotocol/sdk Client over Streamable HTTP",
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    return mcpClient(transport, sessions);
  },
};

const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp-stdio-server.mjs", import.meta.url));

export const mcpStdioDriver: ClientDriver = {
  client: "@modelcontextprotocol/sdk Client over stdio",
  async open(script, files) {
    const root = tempDir();
    const [store, cwd, home] = ["store", "work", "home"].map((name) => join(root, name)) as [string, string, string];
    mkdirSync(cwd);
    mkdirSync(home);
    writeFiles(cwd, files);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_SERVER, store, cwd, home, JSON.stringify(script)],
      stderr: "pipe",
    });
    return mcpClient(transport, async () => {
      const reader = await openStore(store);
      try {
        return (await reader.listSessions({})).sessions.length;
      } finally {
        await reader.close();
      }
    });
  },
};
