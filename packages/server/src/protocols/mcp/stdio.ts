import type { Readable, Writable } from "node:stream";
import type { Runtime } from "@arbor/core";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createArborMcpServer } from "./arbor-mcp-server.js";

export interface McpStdioOptions {
  /** The caller's; never closed here. */
  runtime: Runtime;
  /** Where MCP messages come in (a process's stdin). */
  input: Readable;
  /** Where MCP messages go out, and nothing else (a process's stdout). */
  output: Writable;
  /** Serving stops when this settles too (Ctrl-C), not only when `input` ends. */
  stop?: Promise<void>;
  /** Told once the server listens on `input`. */
  onReady?: () => void;
}

/**
 * Arbor's MCP tools over stdio until `input` ends (the client went away) or `stop` settles: the
 * same server as `/mcp`, over one client's pipe. Runs still going when it stops are the runtime's,
 * which the caller closes.
 */
export async function serveMcpStdio({ runtime, input, output, stop, onReady }: McpStdioOptions): Promise<void> {
  const transport = new StdioServerTransport(input, output);
  const server = createArborMcpServer({ runtime });
  try {
    const stopped = new Promise<void>((resolve) => {
      input.once("end", () => resolve());
      input.once("error", () => resolve());
      void stop?.then(resolve, resolve);
    });
    await server.connect(transport);
    onReady?.();
    await stopped;
  } finally {
    await server.close().catch(() => {});
  }
}
