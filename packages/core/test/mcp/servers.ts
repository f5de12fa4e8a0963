import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "../../src/config/schema.js";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { RunEvent } from "../../src/model/run-events.js";

/** The MCP servers from npm the tests start, from the workspace's node_modules (never fetched at run time). */
const modules = fileURLToPath(new URL("../../../../node_modules/@modelcontextprotocol/", import.meta.url));

export const EVERYTHING_BIN = `${modules}server-everything/dist/index.js`;
export const FILESYSTEM_BIN = `${modules}server-filesystem/dist/index.js`;

export function everythingStdio(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_BIN, "stdio"], timeoutMs: 30_000, enabled: true, ...overrides };
}

export function filesystemStdio(root: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [FILESYSTEM_BIN, root], timeoutMs: 30_000, enabled: true, ...overrides };
}

/**
 * Plays a run's events and aborts it at its first `tool_progress` (a long MCP operation under way);
 * gives the events and when the abort was sent, so a test can check the call ended soon after.
 */
export async function abortAtFirstProgress(handle: RunHandle): Promise<{ events: RunEvent[]; abortedAt: number }> {
  const events: RunEvent[] = [];
  let abortedAt = 0;
  for await (const event of handle) {
    events.push(event);
    if (event.type === "tool_progress" && abortedAt === 0) {
      abortedAt = Date.now();
      handle.abort();
    }
  }
  return { events, abortedAt };
}
