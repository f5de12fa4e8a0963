import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { Runtime } from "@arbor/core";
import { type AcpAgentDeps, createAcpAgent } from "./agent.js";

export interface AcpStdioOptions {
  /** The caller's; never closed here. */
  runtime: Runtime;
  /** Where ACP messages come in (a process's stdin). */
  input: Readable;
  /** Where ACP messages go out, and nothing else (a process's stdout). */
  output: Writable;
  /** Serving stops when this settles too (Ctrl-C), not only when `input` ends. */
  stop?: Promise<void>;
  /** A runtime that also has the MCP servers an editor passes with a session (see `AcpAgentDeps`). */
  runtimeWith?: AcpAgentDeps["runtimeWith"];
  /** Told once the agent listens on `input`. */
  onReady?: () => void;
}

/**
 * Arbor as an ACP agent over stdio (newline-delimited JSON-RPC) until the client closes `input` or
 * `stop` settles. Runs still going then are the runtime's, which the caller closes (aborting them,
 * what they did kept).
 */
export async function serveAcpStdio({ runtime, input, output, stop, runtimeWith, onReady }: AcpStdioOptions): Promise<void> {
  const stream = ndJsonStream(
    Writable.toWeb(output) as WritableStream<Uint8Array>,
    Readable.toWeb(input) as ReadableStream<Uint8Array>,
  );
  const connection = createAcpAgent({ runtime, ...(runtimeWith === undefined ? {} : { runtimeWith }) }).connect(stream);
  onReady?.();
  await Promise.race([connection.closed, stop ?? new Promise<void>(() => {})]);
  connection.close();
}
